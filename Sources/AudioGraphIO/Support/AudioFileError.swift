/// What went wrong with an audio file, whichever library opened, read or wrote it: the one kind that
/// `SoundFileError` (libsndfile) and `FFmpegError` (FFmpeg) both carry, so a caller decides on it once.
public enum AudioFileFailure: Sendable, Equatable {
    /// The file to read does not exist.
    case notFound
    /// The file exists but cannot be read (permission, a directory, corrupt data).
    case unreadable
    /// The format or encoding is not recognised, the file holds no audio the library can decode, or a writer
    /// does not take the requested container, sample format or encoder settings.
    case unsupportedFormat
    /// A writer could not create the file (missing folder, a directory in the way, permission).
    case cannotCreate
    /// Reading, decoding, encoding or writing failed after the file was opened, and the system said so (a disk
    /// error, a full disk).
    case io
    /// The file opened, but its data is not valid for its format (a corrupt or truncated file).
    case corrupt
}

/// An audio file library's error: what went wrong, the file, and `message`, meant to be shown to a person as is
/// (it names the file and says what went wrong, e.g. `cannot open /x/y.wav: No such file or directory`).
public protocol AudioFileError: Error, CustomStringConvertible, Sendable {
    var kind: AudioFileFailure { get }
    var path: String { get }
    var message: String { get }
}

extension AudioFileError {
    public var description: String { message }
}
