import AudioGraphCore
import Synchronization

/// A recognizer engine type: its name, what it can do, and how to make a decoder. Engines are registered in
/// `RecognizerEngines` (like swift-log's `LogHandler`: a process-wide default that tests and embedders can
/// add to), and a config picks one with the recognizer node's `engine` parameter.
public struct RecognizerEngine: Sendable {
    public let name: String
    public let summary: String
    /// The capabilities the engine will have for these options (languages may depend on the models given).
    public let capabilities: @Sendable (RecognizerOptions) -> RecognizerCapabilities
    /// Checks the options before any audio flows (models exist, …). Throws `GraphError`s naming parameters.
    public let validate: @Sendable (RecognizerOptions) throws -> Void
    /// Makes a decoder (loads models). Called once per run, from `start`.
    public let make: @Sendable (RecognizerOptions) throws -> any SpeechRecognizer

    public init(name: String, summary: String,
                capabilities: @escaping @Sendable (RecognizerOptions) -> RecognizerCapabilities,
                validate: @escaping @Sendable (RecognizerOptions) throws -> Void = { _ in },
                make: @escaping @Sendable (RecognizerOptions) throws -> any SpeechRecognizer) {
        self.name = name
        self.summary = summary
        self.capabilities = capabilities
        self.validate = validate
        self.make = make
    }
}

/// The process-wide table of recognizer engines. `pocketsphinx` is built in; tests, embedders and plugins
/// register more.
public enum RecognizerEngines {
    private static let table = Mutex<[String: RecognizerEngine]>(["pocketsphinx": PocketSphinxEngine.engine])

    /// Adds (or replaces) an engine.
    public static func register(_ engine: RecognizerEngine) {
        table.withLock { $0[engine.name] = engine }
    }

    public static func engine(named name: String) -> RecognizerEngine? {
        table.withLock { $0[name] }
    }

    public static var names: [String] {
        table.withLock { $0.keys.sorted() }
    }
}
