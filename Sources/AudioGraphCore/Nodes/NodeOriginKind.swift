/// Where a registered node type comes from, as `audiograph nodes` marks it.
public enum NodeOriginKind: String, Sendable, CaseIterable {
    /// Registered by `NodeRegistry.builtins`.
    case builtIn = "built-in"
    /// Loaded from a run-time plugin (its origin is the library's path).
    case plugin
    /// Registered by the embedding program (`register(_:origin:)` with a name of its own).
    case app
}

extension NodeRegistry.Entry {
    /// Whether the type is built in, from a plugin, or the embedding app's.
    public var originKind: NodeOriginKind {
        if origin == NodeOriginKind.builtIn.rawValue { return .builtIn }
        return origin.contains("/") || origin.hasSuffix(".so") || origin.hasSuffix(".dylib") ? .plugin : .app
    }
}
