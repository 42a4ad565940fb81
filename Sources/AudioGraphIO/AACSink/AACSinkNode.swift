import AudioGraphCore
import Foundation

/// `aac-sink`: encodes audio to AAC-LC with FFmpeg's native encoder, into `.m4a`/`.mp4` (MPEG-4, gapless: an
/// edit list hides the encoder's priming, so players and ffprobe see exactly the recorded length) or `.aac`
/// (raw ADTS). The file is finalized (encoder flushed, MPEG-4 index written) on end of stream, on SIGINT and
/// when another node fails; a write failure (disk full) is an I/O error naming the file.
///
/// Input: the sample rates AAC codes (8–96 kHz) and 1–8 channels; the graph builder inserts a resampler for
/// anything else (e.g. 22.05 kHz stays, 20 kHz becomes 22.05 kHz, 10 channels become 8).
public final class AACSinkNode: AudioNode {
    static let bitrate = Parameter.integer("bitrate", range: 16_000...320_000, default: 64_000,
        doc: "Target bit rate in bits per second, all channels together.")

    public static let descriptor = NodeDescriptor(
        type: "aac-sink",
        summary: "Encodes audio to AAC-LC in an .m4a/.mp4 (gapless) or .aac (ADTS) file.",
        category: .sink,
        parameters: [
            ParameterSpec("path", .path(.output), required: true,
                          doc: "The file to write, relative to the config file: .m4a or .mp4 (MPEG-4, gapless) or "
                              + ".aac (ADTS). Its folder is created if missing."),
            bitrate.spec,
        ],
        inputs: [.init(requires: [.audio])],
        outputs: [],
        acceptedFormats: FormatRequirement(sampleRates: AACFileWriter.supportedSampleRates,
                                           channels: AACFileWriter.supportedChannels),
        execution: .queued(capacity: 64))

    private let container: AACContainer
    private let bitrate: Int
    private var file: FileSinkLifecycle<AACFileWriter>

    public init(configuration: NodeConfiguration) throws {
        let path = configuration.path("path")!
        let ext = URL(fileURLWithPath: path).pathExtension.lowercased()
        guard let container = AACContainer(pathExtension: ext) else {
            let what = ext.isEmpty ? "the file name has no extension" : "unknown extension \".\(ext)\""
            throw configuration.error("cannot tell the container: \(what); use .m4a, .mp4 or .aac", parameter: "path")
        }
        // Before any audio flows (nothing created yet): FFmpeg is loaded on first use, and may be missing.
        if let reason = FFmpeg.unavailableReason {
            throw configuration.error("cannot record AAC to \(path): \(reason)", parameter: "path", code: .unavailable)
        }
        self.container = container
        bitrate = configuration[Self.bitrate]
        file = FileSinkLifecycle(path: path, node: configuration)
    }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }

    public func start(_ context: NodeContext) throws {
        guard context.inputFormat != nil else { return }
        FFmpeg.configureLogging(verbose: context.options.verbose)
        try file.check()
    }

    /// Creates the file, once every node of the run started.
    public func openOutputs(_ context: NodeContext) throws {
        guard let format = context.inputFormat else { return }
        try file.open { path throws(FFmpegError) in
            try AACFileWriter(path: path, sampleRate: format.sampleRate, channels: format.channels, bitrate: bitrate,
                              container: container)
        }
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        try file.write(buffer)
    }

    /// Events and control commands are not recorded, and a sink has nothing to pass them on to. (`flush`
    /// does not cut the recording: the file is one gapless stream.)
    public func handle(_ event: Event, _ context: NodeContext) throws {}
    public func handle(_ command: ControlCommand, _ context: NodeContext) throws {}

    public func finish(_ context: NodeContext) throws {
        try file.finish()
    }

    /// Finalizes the file if `finish` did not (SIGINT, a failure elsewhere or here): flushes the encoder and
    /// writes the index, so what was recorded stays playable. Never throws; idempotent.
    public func stop() {
        file.stop()
    }
}
