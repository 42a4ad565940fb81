/// An error from opening, reading or writing a sound file through libsndfile.
///
/// `message` is meant to be shown to a person as is: it names the file and says
/// what went wrong, e.g. `cannot open /x/y.wav: No such file or directory`.
public struct SoundFileError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable {
        /// The file to read does not exist.
        case notFound
        /// The file exists but cannot be read (permission, a directory, corrupt data).
        case unreadable
        /// The file's format or encoding is not recognised, or a requested
        /// container/sample-format combination is not supported.
        case unsupportedFormat
        /// A writer could not create the file (missing directory, permission).
        case cannotCreate
        /// Reading or writing failed after the file was opened (the system said so: a disk error, a full disk).
        case io
        /// The file opened, but its data is not valid for its format (a corrupt or truncated file).
        case corrupt
    }

    public let kind: Kind
    public let path: String
    public let message: String

    public init(kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }

    public var description: String { message }
}
