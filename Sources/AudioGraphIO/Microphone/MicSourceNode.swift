import AudioGraphCore

/// `mic-source`: live capture from a microphone through PulseAudio (which PipeWire also serves).
///
/// Live: `isLive` is true, so queued nodes behind it drop and count frames when they fall behind instead of
/// stalling capture (the run's summary and warnings report the drops). The device is opened in `start`, so
/// `audiograph validate` needs no sound server; `run` without one fails with exit 69.
///
/// `produce` blocks in the read for one block (`blockMs`), so cancellation takes at most one block.
public final class MicSourceNode: SourceNode {
    static let sampleRate = Parameter.integer("sampleRate", range: 8000...192_000, default: 16000,
        doc: "Sample rate in Hz to capture at (the sound server converts).")
    static let channels = Parameter.integer("channels", range: 1...8, default: 1,
        doc: "Channels to capture (the sound server mixes or splits).")
    static let blockMs = Parameter.integer("blockMs", range: 10...200, default: 20,
        doc: "Milliseconds of audio per buffer sent downstream (also the longest a stop waits).")

    public static let descriptor = NodeDescriptor(
        type: "mic-source",
        summary: "Captures a microphone through PulseAudio or PipeWire (live).",
        category: .source,
        parameters: [
            ParameterSpec("device", .string,
                          doc: "Capture device (a source name from `pactl list short sources`, e.g. a sink's "
                              + "`.monitor`). Default: the sound server's default source."),
            sampleRate.spec,
            channels.spec,
            blockMs.spec,
            ParameterSpec("server", .string,
                          doc: "Sound server address (`unix:/path/native`, `tcp:host:4713`). Default: "
                              + "`PULSE_SERVER`, else the user's session."),
        ],
        inputs: [],
        outputs: [.init(produces: [.audio], forwardsInput: false)])

    public let format: AudioFormat
    public let device: String?
    public let server: String?
    public let blockFrames: Int
    private let configuration: NodeConfiguration
    private var capture: PulseAudioCapture?
    private var scratch: [Float]
    private var position: Int64 = 0
    private var nextLatencyCheck: Int64 = 0
    private var warnedLag = false

    public init(configuration: NodeConfiguration) throws {
        self.configuration = configuration
        format = AudioFormat(sampleRate: configuration[Self.sampleRate],
                             channels: configuration[Self.channels])
        device = configuration.string("device")
        server = configuration.string("server")
        if device?.isEmpty == true {
            throw configuration.error("device must not be empty; leave it out for the default source",
                                      parameter: "device")
        }
        if server?.isEmpty == true {
            throw configuration.error("server must not be empty; leave it out for the default server",
                                      parameter: "server")
        }
        blockFrames = max(1, format.sampleRate * configuration[Self.blockMs] / 1000)
        scratch = []
    }

    public var isLive: Bool { true }
    public var totalFrames: Int64? { nil }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    /// Connects to the sound server and opens the device. Errors: exit 69, with messages starting
    /// "microphone unavailable" or "microphone permission denied".
    public func start(_ context: NodeContext) throws {
        guard capture == nil else { return }
        do {
            capture = try PulseAudioCapture(device: device, sampleRate: format.sampleRate, channels: format.channels,
                                            server: server, fragmentFrames: min(blockFrames, format.sampleRate / 50),
                                            streamName: "audiograph \(context.nodeID)")
        } catch {
            throw error.graphError(for: configuration)
        }
        scratch = [Float](repeating: 0, count: blockFrames * format.channels)
        position = 0
        nextLatencyCheck = Int64(format.sampleRate)
        warnedLag = false
    }

    public func produce(_ context: NodeContext) throws -> SourceStatus {
        if context.isCancelled { return .finished }
        guard let capture else {
            throw GraphError(.nodeFailed, at: configuration.jsonPath().description,
                             "mic-source produced before start", node: context.nodeID)
        }
        let frames = blockFrames
        do {
            // Reuses `scratch` in place while no one downstream kept the previous buffer.
            try scratch.withUnsafeMutableBufferPointer { buffer throws(MicrophoneError) in
                try capture.read(into: buffer, frames: frames)
            }
        } catch {
            throw error.graphError(for: configuration)
        }
        context.emit(AudioBuffer(format: format, samples: scratch, position: position))
        position += Int64(frames)
        if position >= nextLatencyCheck {
            nextLatencyCheck = position + Int64(format.sampleRate)
            checkLag(capture, context)
        }
        return .more
    }

    /// Warns once when the graph reads the microphone so late that the stream's buffer is half full: an inline
    /// node after the source is slower than real time, and audio is lost once the buffer fills. (Queued nodes
    /// cannot cause this: their queues drop and count instead.)
    private func checkLag(_ capture: PulseAudioCapture, _ context: NodeContext) {
        guard !warnedLag, let lag = capture.latencySeconds() else { return }
        let limit = Double(capture.bufferFrames) / Double(format.sampleRate)
        if lag > limit / 2 {
            warnedLag = true
            let lagMs = Int(lag * 1000), limitMs = Int(limit * 1000)
            context.warn("capture is \(lagMs) ms behind the microphone: a node inline after it is slower than "
                + "real time; audio is lost once \(limitMs) ms are buffered (put slow nodes behind a queue)")
        }
    }

    /// Frees the stream. Idempotent.
    public func stop() {
        capture?.close()
        capture = nil
    }
}
