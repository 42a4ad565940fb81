import AudioGraphCore

/// `file-source`: streams an audio file (WAV, FLAC, OGG/Vorbis, MP3 and the rest libsndfile reads) block by
/// block, so memory stays flat however long the file. With `realtime`, paces itself at 1x on the clock, as a
/// live source would.
public final class FileSourceNode: SourceNode {
    public static let descriptor = NodeDescriptor(
        type: "file-source",
        summary: "Reads an audio file (WAV, FLAC, OGG/Vorbis, MP3, …) as a stream.",
        category: .source,
        parameters: [
            ParameterSpec("path", .path(.input), required: true, doc: "The file to read, relative to the config file."),
            ParameterSpec("blockFrames", .integer(range: 16...65536), default: 1024,
                          doc: "Frames per buffer sent downstream."),
            ParameterSpec("realtime", .boolean, default: false,
                          doc: "Pace the stream at 1x real time, as a live source would (for demos and latency tests)."),
        ],
        inputs: [],
        outputs: [.init(produces: [.audio], forwardsInput: false)])

    private let reader: SoundFileReader
    private let blockFrames: Int
    private let realtime: Bool
    private var scratch: [Float]
    private var position: Int64 = 0
    private var startTime: Double?

    public init(configuration: NodeConfiguration) throws {
        let path = configuration.path("path")!
        do {
            reader = try SoundFileReader(path: path)
        } catch {
            throw configuration.error(error.message, parameter: "path",
                                      code: error.kind == .notFound ? .missingInput : .invalidConfig)
        }
        blockFrames = configuration.int("blockFrames") ?? 1024
        realtime = configuration.bool("realtime") ?? false
        scratch = [Float](repeating: 0, count: blockFrames * reader.channels)
    }

    public var format: AudioFormat { AudioFormat(sampleRate: reader.sampleRate, channels: reader.channels) }
    public var totalFrames: Int64? { reader.frameCount }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    public func produce(_ context: NodeContext) throws -> SourceStatus {
        let blockFrames = self.blockFrames
        let reader = self.reader
        let frames: Int
        do {
            // Reuses `scratch` in place while no one downstream kept the previous buffer.
            frames = try scratch.withUnsafeMutableBufferPointer { buffer throws(SoundFileError) in
                try reader.read(into: buffer, maxFrames: blockFrames)
            }
        } catch {
            throw GraphError(.io, at: reader.path, error.message, node: context.nodeID)
        }
        if frames == 0 { return .finished }
        if realtime { pace(context) }
        let samples = frames == blockFrames ? scratch : Array(scratch[0..<(frames * reader.channels)])
        context.emit(AudioBuffer(format: format, samples: samples, position: position))
        position += Int64(frames)
        return .more
    }

    /// Waits until the block at `position` is due at 1x.
    private func pace(_ context: NodeContext) {
        let now = context.clock.now()
        let start = startTime ?? now
        startTime = start
        let due = start + Double(position) / Double(reader.sampleRate)
        if due > now { context.clock.sleep(until: due, cancellation: context.cancellationFlag) }
    }

    public func stop() { reader.close() }
}
