/// Roles the session layer finds nodes by — what they are, not their type name — so a config that swaps the
/// recognizer engine, the caption format or the store runs the same session code.

/// A node that turns speech into transcripts (any engine).
public protocol TranscriberRole: AnyObject {
    /// The engine's name (`pocketsphinx`, a plugin's).
    var engineName: String { get }
    /// Caption language codes it can transcribe.
    var supportedLanguages: [String] { get }
    /// What would make more languages available (e.g. a model to install); nil when nothing would.
    var languageHint: String? { get }
}

extension TranscriberRole {
    public var languageHint: String? { nil }
}

/// A node that shows or writes captions.
public protocol CaptionRole: AnyObject {}

/// A node that stores transcripts.
public protocol TranscriptStoreRole: AnyObject {
    /// Where the store is: a file path, or a connection string for a server database.
    var storeLocation: String { get }
    /// The session id this run's rows are written under (`session.id`, or one generated per run).
    var sessionID: String { get }
}

/// A node with something to say once it is built (which engine `auto` picked, and why). The graph builder adds
/// its notes to `Graph.notes`, which `audiograph run` prints on stderr (`audiograph: note: …`) unless `--quiet`.
public protocol NoteReporting: AnyObject {
    var buildNotes: [String] { get }
}
