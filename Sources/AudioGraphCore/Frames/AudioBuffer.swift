/// A block of audio: interleaved float samples in one `AudioFormat`, and where its first frame sits in the
/// stream (so every event computed from it can be placed on the audio's own clock).
public struct AudioBuffer: Sendable, Equatable {
    public var format: AudioFormat
    /// Interleaved samples: frame `i`, channel `c` is at `i * channels + c`.
    public var samples: [Float]
    /// Stream position of the first frame, in frames since the start of the stream.
    public var position: Int64

    public init(format: AudioFormat, samples: [Float], position: Int64) {
        precondition(format.channels > 0 && samples.count % format.channels == 0,
                     "sample count must be a multiple of the channel count")
        self.format = format
        self.samples = samples
        self.position = position
    }

    public var frameCount: Int { samples.count / format.channels }

    /// Stream time of the first frame, in seconds.
    public var startTime: Double { Double(position) / Double(format.sampleRate) }

    /// Stream time just after the last frame, in seconds.
    public var endTime: Double { Double(position + Int64(frameCount)) / Double(format.sampleRate) }

    /// Position just after the last frame.
    public var endPosition: Int64 { position + Int64(frameCount) }
}
