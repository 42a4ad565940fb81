/// An error from opening, reading or writing a sound file through libsndfile.
///
/// `message` is meant to be shown to a person as is: it names the file and says
/// what went wrong, e.g. `cannot open /x/y.wav: No such file or directory`.
public struct SoundFileError: AudioFileError {
    /// The kind every audio file error shares (`AudioFileFailure`).
    public typealias Kind = AudioFileFailure

    public let kind: Kind
    public let path: String
    public let message: String

    public init(kind: Kind, path: String, message: String) {
        self.kind = kind
        self.path = path
        self.message = message
    }
}
