import AudioGraphCore
import Synchronization

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
