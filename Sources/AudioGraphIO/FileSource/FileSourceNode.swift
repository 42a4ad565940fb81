import AudioGraphCore
import Foundation

/// What `file-source` reads through: libsndfile (`SoundFileReader`) or FFmpeg (`FFmpegAudioReader`). Both
/// stream interleaved float frames at the file's own rate and channel count.
public protocol AudioFileReader: AnyObject {
    var path: String { get }
    var sampleRate: Int { get }
    var channels: Int { get }
    /// Frames in the file, when known.
    var frameCount: Int64? { get }
    /// What the file is, for people: "WAV (Signed 16 bit PCM)", "M4A (AAC) via FFmpeg".
    var formatName: String { get }
    /// Reads up to `maxFrames` frames into `buffer`; 0 at the end. Errors describe themselves (`"\(error)"`).
    func read(into buffer: UnsafeMutableBufferPointer<Float>, maxFrames: Int) throws -> Int
    /// Closes the file; idempotent.
    func close()
}

extension SoundFileReader: AudioFileReader {}
extension FFmpegAudioReader: AudioFileReader {}

/// `file-source`: streams an audio file block by block, so memory stays flat however long the file. libsndfile
/// reads WAV, FLAC, OGG/Vorbis, Opus and MP3; anything else FFmpeg decodes (M4A/MP4/AAC, WebM, …) is read
/// through libavformat/libavcodec, with encoder priming dropped so a recorded M4A decodes to its recorded
/// length. With `realtime`, paces itself at 1x on the clock, as a live source would.
public final class FileSourceNode: SourceNode {
    static let blockFrames = Parameter.integer("blockFrames", range: 16...65536, default: 1024,
                                               doc: "Frames per buffer sent downstream.")
    static let realtime = Parameter.boolean("realtime", default: false,
                                            doc: "Pace the stream at 1x real time, as a live source would (for demos and latency tests).")

    public static let descriptor = NodeDescriptor(
        type: "file-source",
        summary: "Reads an audio file (WAV, FLAC, OGG/Vorbis, MP3, M4A/AAC and anything FFmpeg decodes) as a stream.",
        category: .source,
        parameters: [
            ParameterSpec("path", .path(.input), required: true, doc: "The file to read, relative to the config file."),
            blockFrames.spec,
            realtime.spec,
        ],
        inputs: [],
        outputs: [.init(produces: [.audio], forwardsInput: false)])

    private let reader: any AudioFileReader
    private let blockFrames: Int
    private let realtime: Bool
    private var scratch: [Float]
    private var position: Int64 = 0
    private var startTime: Double?

    public init(configuration: NodeConfiguration) throws {
        let path = configuration.path("path")!
        reader = try Self.openReader(path: path, configuration: configuration)
        blockFrames = configuration[Self.blockFrames]
        realtime = configuration[Self.realtime]
        scratch = [Float](repeating: 0, count: blockFrames * reader.channels)
    }

    static func openReader(path: String, configuration: NodeConfiguration) throws(GraphError) -> any AudioFileReader {
        try AudioFileReaders.open(path: path, location: configuration.jsonPath("path").description, node: configuration.id)
    }

    public var format: AudioFormat { AudioFormat(sampleRate: reader.sampleRate, channels: reader.channels) }
    /// What the file is: "WAV (Signed 16 bit PCM)" from libsndfile, "M4A (AAC) via FFmpeg" from FFmpeg.
    public var formatName: String { reader.formatName }
    /// Played at 1x with `realtime`.
    public var isRealtime: Bool { realtime }

    public var totalFrames: Int64? { reader.frameCount }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { format }

    public func produce(_ context: NodeContext) throws -> SourceStatus {
        let blockFrames = self.blockFrames
        let reader = self.reader
        let frames: Int
        do {
            // Reuses `scratch` in place while no one downstream kept the previous buffer.
            frames = try scratch.withUnsafeMutableBufferPointer { buffer in
                try reader.read(into: buffer, maxFrames: blockFrames)
            }
        } catch {
            // Bad data is a bad input (65) in every format; only the system failing is an I/O error (74).
            let corrupt = (error as? any AudioFileError)?.kind == .corrupt
            throw GraphError(corrupt ? .invalidConfig : .io, at: reader.path, "\(error)", node: context.nodeID)
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

/// Opening an audio file for reading: what `file-source` does, for anything else that reads files too
/// (`audiograph join`).
public enum AudioFileReaders {
    /// libsndfile first (exact, fast, no priming questions); what it cannot read goes to FFmpeg. When both
    /// fail, the error is at `location` and says what each said.
    public static func open(path: String, location: String, node: String? = nil) throws(GraphError) -> any AudioFileReader {
        func failure(_ message: String, code: GraphError.Code = .invalidConfig) -> GraphError {
            GraphError(code, at: location, message, node: node)
        }
        // Before any open: a FIFO with no writer would block the open, a device would never end. (A missing
        // path or a folder is reported below, as the readers see it.)
        switch FileKind(path: path) {
        case .regular, .directory, .missing: break
        default: try FileKind.requireRegularFile(path, at: location, node: node)
        }
        let sndFileError: SoundFileError
        do {
            return try SoundFileReader(path: path)
        } catch {
            sndFileError = error
        }
        var isDirectory: ObjCBool = false
        let directory = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
        switch sndFileError.kind {
        case .notFound:
            throw failure(sndFileError.message, code: .missingInput)
        case .unsupportedFormat, .unreadable:
            if directory { throw failure(sndFileError.message) }
            if let reason = FFmpeg.unavailableReason {
                throw failure("\(sndFileError.message); FFmpeg, which reads what libsndfile cannot, is not "
                              + "available: \(reason)", code: .unavailable)
            }
            do {
                return try FFmpegAudioReader(path: path)
            } catch {
                let prefix = "cannot open \(path): "
                func reason(_ message: String) -> String {
                    message.hasPrefix(prefix) ? String(message.dropFirst(prefix.count)) : message
                }
                throw failure(
                    prefix + "neither libsndfile nor FFmpeg can read it (libsndfile: \(reason(sndFileError.message)); "
                        + "FFmpeg: \(reason(error.message)))",
                    code: error.kind == .notFound ? .missingInput : .invalidConfig)
            }
        default:
            throw failure(sndFileError.message)
        }
    }
}
