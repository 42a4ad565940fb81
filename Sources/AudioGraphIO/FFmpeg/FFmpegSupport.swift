import CFFmpeg
import CFFmpegLoader

/// An error from FFmpeg (libavformat, libavcodec, libswresample) while opening, decoding or encoding a file.
///
/// `message` is meant to be shown to a person as is: it names the file and says what went wrong, with
/// FFmpeg's own text (`av_strerror`), e.g. `cannot write /x/out.m4a: No space left on device`.
public struct FFmpegError: AudioFileError {
    /// The kind every audio file error shares (`AudioFileFailure`).
    public typealias Kind = AudioFileFailure

    public let kind: Kind
    public let path: String
    public let message: String
    /// The `AVERROR` code behind the error, when FFmpeg returned one.
    public let code: Int32?

    public init(kind: Kind, path: String, message: String, code: Int32? = nil) {
        self.kind = kind
        self.path = path
        self.message = message
        self.code = code
    }
}

/// Small helpers around FFmpeg's C API.
enum FFmpeg {
    /// Why FFmpeg's libraries cannot be used (`CFFmpegLoader` could not load them or one of the functions
    /// audiograph calls), or nil once they are loaded. The binary does not link them: they are loaded here, on
    /// first use, by whatever needs them (a file libsndfile cannot read, AAC), so runs that never need them
    /// save their ~130 shared libraries and ~24 MB of resident memory.
    static let loadFailure: String? = {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 512) { buffer in
            buffer.initialize(repeating: 0)
            guard audiograph_ffmpeg_load(buffer.baseAddress, buffer.count) != 0 else { return nil }
            return String(cString: buffer.baseAddress!)
        }
    }()

    /// Why FFmpeg cannot be used and what to install (`loadFailure` and the packages), or nil once it is loaded.
    static var unavailableReason: String? { unavailableReason(loadFailure) }

    /// `failure` and what to install: Debian names each package after its library's soname (libavutil.so.57 is
    /// in libavutil57).
    static func unavailableReason(_ failure: String?) -> String? {
        failure.map {
            "\($0); install FFmpeg's libraries (Debian: "
                + libraryNames.map { $0.replacingOccurrences(of: ".so.", with: "") }.joined(separator: ", ") + ")"
        }
    }

    /// Throws `kind`, "cannot ACTION PATH: …", when FFmpeg's libraries cannot be loaded (`failure`: this process's
    /// by default), before the reader or writer calls into them.
    static func requireLibraries(_ action: String, _ path: String, kind: FFmpegError.Kind,
                                 failure: String? = loadFailure) throws(FFmpegError) {
        guard let reason = unavailableReason(failure) else { return }
        throw FFmpegError(kind: kind, path: path, message: "cannot \(action) \(path): \(reason)")
    }

    /// The file names of FFmpeg's libraries, in the order they are loaded (libavutil first).
    static var libraryNames: [String] {
        (0...).lazy.map { audiograph_ffmpeg_library(Int32($0)) }.prefix { $0 != nil }.map { String(cString: $0!) }
    }

    /// `AVERROR(EAGAIN)`, `AVERROR_EOF` (macros in C).
    static let again = audiograph_averror_eagain()
    static let endOfFile = audiograph_averror_eof()

    /// FFmpeg's text for an `AVERROR` code (`av_strerror`): "No space left on device", "Invalid data found
    /// when processing input".
    static func errorText(_ code: Int32) -> String {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 256) { buffer in
            buffer.initialize(repeating: 0)
            guard av_strerror(code, buffer.baseAddress, buffer.count) == 0 else { return "FFmpeg error \(code)" }
            return String(cString: buffer.baseAddress!)
        }
    }

    /// What a failed read (`av_read_frame`) is: `AVERROR(errno)` is the system failing (`.io`, exit 74) —
    /// except `EINVAL` and `EPERM` (-1, what code that returns a bare -1 gives), which demuxers return for data
    /// they cannot parse; FFmpeg's own codes (`AVERROR_INVALIDDATA`, …) are the file's data being wrong
    /// (`.corrupt`, exit 65). A decoder does no I/O: every decode failure is `.corrupt`.
    static func readFailureKind(_ code: Int32) -> FFmpegError.Kind {
        let isErrno = code < 0 && code > -4096
        return isErrno && code != -EINVAL && code != -EPERM ? .io : .corrupt
    }

    /// FFmpeg logs to stderr on its own (warnings such as "Too many bits per frame requested"). audiograph
    /// reports what matters as errors, so the libraries stay quiet unless `verbose` asks for their logs.
    /// The level is process-wide.
    static func configureLogging(verbose: Bool = false) {
        guard loadFailure == nil else { return }
        _ = quietByDefault
        if verbose { av_log_set_level(AV_LOG_WARNING) }
    }

    private static let quietByDefault: Void = { av_log_set_level(AV_LOG_QUIET) }()
}
