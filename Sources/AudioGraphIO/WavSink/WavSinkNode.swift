import AudioGraphCore
import Foundation

/// `wav-sink`: writes audio to WAV, FLAC or OGG/Vorbis through libsndfile. The header is rewritten about
/// once a second so that even a killed process leaves a playable file, and the file is closed (finalized) on
/// end of stream, on SIGINT, and when another node fails.
public final class WavSinkNode: AudioNode {
    /// `format`: a container, or `auto` (from the file extension).
    enum ContainerChoice: String, CaseIterable, Sendable {
        case auto, wav, flac, ogg

        /// The container asked for; nil for `auto`.
        var container: SoundFileContainer? { SoundFileContainer(rawValue: rawValue) }
    }

    static let format = Parameter.choice("format", default: ContainerChoice.auto,
                                         doc: "Container; auto picks it from the file extension (.wav, .flac, .ogg).")
    static let sampleFormat = Parameter.choice("sampleFormat", default: SoundFileSampleFormat.pcm16,
                                               doc: "Sample encoding (float is WAV only; OGG is always Vorbis).")

    public static let descriptor = NodeDescriptor(
        type: "wav-sink",
        summary: "Writes audio to a WAV, FLAC or OGG/Vorbis file.",
        category: .sink,
        parameters: [
            ParameterSpec("path", .path(.output), required: true,
                          doc: "The file to write, relative to the config file. Its folder is created if missing."),
            format.spec,
            sampleFormat.spec,
        ],
        inputs: [.init(requires: [.audio])],
        outputs: [],
        acceptedFormats: FormatRequirement(channels: 1...8),
        execution: .queued(capacity: 64))

    private let container: SoundFileContainer
    private let sampleFormat: SoundFileSampleFormat
    private var file: FileSinkLifecycle<SoundFileWriter>
    private var framesSinceHeaderUpdate = 0

    public init(configuration: NodeConfiguration) throws {
        let path = configuration.path("path")!
        if let container = configuration[Self.format].container {
            self.container = container
        } else {
            let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
            guard let container = SoundFileContainer(pathExtension: ext) else {
                let what = ext.isEmpty ? "the file name has no extension" : "unknown extension \".\(ext)\""
                throw configuration.error("cannot tell the format: \(what); use .wav, .flac or .ogg, or set \"format\"",
                                          parameter: "path")
            }
            self.container = container
        }
        sampleFormat = configuration[Self.sampleFormat]
        if sampleFormat == .float && container != .wav {
            throw configuration.error("sampleFormat float is only available for WAV", parameter: "sampleFormat")
        }
        file = FileSinkLifecycle(path: path, node: configuration)
    }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }

    public func start(_ context: NodeContext) throws {
        guard context.inputFormat != nil else { return }
        try file.check()
    }

    /// Creates the file, once every node of the run started.
    public func openOutputs(_ context: NodeContext) throws {
        guard let format = context.inputFormat else { return }
        try file.open { path throws(SoundFileError) in
            try SoundFileWriter(path: path, sampleRate: format.sampleRate, channels: format.channels,
                                container: container, sampleFormat: sampleFormat)
        }
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        guard let writer = try file.write(buffer) else { return }
        framesSinceHeaderUpdate += buffer.frameCount
        if framesSinceHeaderUpdate >= buffer.format.sampleRate {
            framesSinceHeaderUpdate = 0
            writer.updateHeader()
        }
    }

    public func handle(_ event: Event, _ context: NodeContext) throws {}

    public func finish(_ context: NodeContext) throws {
        try file.finish()
    }

    public func stop() {
        file.stop()
    }
}
