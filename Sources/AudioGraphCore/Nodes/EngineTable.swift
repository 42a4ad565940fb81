import Synchronization

/// A process-wide table of named engines (recognizer engines, vad engines): registered once by name, listed with
/// a preferred order first, as `NodeRegistry` does for node types. `auto` is never a name: it stands for the
/// first of `preference` that is available.
public final class EngineTable<Engine: Sendable>: Sendable {
    /// What the engines are, for messages ("recognizer engine").
    public let kind: String
    /// The order `auto` tries and listings show first.
    public let preference: [String]
    private let table: Mutex<[String: Engine]>

    public init(kind: String, builtIns: [String: Engine], preference: [String]) {
        self.kind = kind
        self.preference = preference
        table = Mutex(builtIns)
    }

    /// Adds an engine; a name already registered (or not a valid identifier, or `auto`) is refused
    /// (`.invalidConfig`, exit 65).
    public func register(_ engine: Engine, named name: String) throws(GraphError) {
        guard NodeIdentifier.isValid(name), name != "auto" else {
            throw GraphError(.invalidConfig, at: "\(kind) \"\(name)\"",
                             "an engine name may only hold letters, digits, '-' and '_', and may not be \"auto\"")
        }
        let added = table.withLock { engines in
            guard engines[name] == nil else { return false }
            engines[name] = engine
            return true
        }
        guard added else { throw GraphError(.invalidConfig, at: "\(kind) \"\(name)\"", "\(kind) \"\(name)\" is already registered") }
    }

    public func engine(named name: String) -> Engine? {
        table.withLock { $0[name] }
    }

    public var names: [String] {
        table.withLock { $0.keys.sorted() }
    }

    /// The config error for an `engine` value no engine answers to: it names `nodes.ID.engine`, suggests the
    /// nearest name and lists the registered ones.
    public func unknownEngine(_ name: String, in configuration: NodeConfiguration) -> GraphError {
        let names = self.names
        return configuration.error("unknown \(kind) \"\(name)\"" + Suggestions.hint(for: name, in: names)
            + "; engines: " + names.joined(separator: ", "), parameter: "engine")
    }

    /// Registered engines, those of `preference` first, then the others by name.
    public var all: [Engine] {
        let engines = table.withLock { $0 }
        let ordered = preference.filter { engines[$0] != nil } + engines.keys.sorted().filter { !preference.contains($0) }
        return ordered.compactMap { engines[$0] }
    }
}
