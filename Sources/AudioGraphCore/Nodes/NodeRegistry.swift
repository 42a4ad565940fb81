/// The node types a graph may use, by type name. Build one explicitly (tests, embedders) or start from the
/// default registry of built-ins (`NodeRegistry.builtins` in the `AudioGraph` module) and add to it.
public struct NodeRegistry: Sendable {
    /// A registered type: its declaration and how to make an instance.
    public struct Entry: Sendable {
        public let descriptor: NodeDescriptor
        public let make: @Sendable (NodeConfiguration) throws -> any AudioNode
        /// Where the type came from ("built-in", a plugin's path, an embedding app).
        public let origin: String
    }

    private var entries: [String: Entry] = [:]

    public init() {}

    /// Registers a node type. A type name may be registered once.
    public mutating func register<Node: AudioNode>(_ type: Node.Type, origin: String = "built-in") throws(GraphError) {
        try register(descriptor: Node.descriptor, origin: origin) { try Node(configuration: $0) }
    }

    /// Registers a node type from a declaration and a factory (what run-time plugins use).
    public mutating func register(descriptor: NodeDescriptor, origin: String,
                                  make: @escaping @Sendable (NodeConfiguration) throws -> any AudioNode) throws(GraphError) {
        if let existing = entries[descriptor.type] {
            throw GraphError(.invalidConfig, at: origin,
                             "node type \"\(descriptor.type)\" is already registered (from \(existing.origin))")
        }
        guard NodeIdentifier.isValid(descriptor.type) else {
            throw GraphError(.invalidConfig, at: origin,
                             "node type name \"\(descriptor.type)\" may only hold letters, digits, '-' and '_'")
        }
        entries[descriptor.type] = Entry(descriptor: descriptor, make: make, origin: origin)
    }

    public func entry(for type: String) -> Entry? { entries[type] }

    /// Registered type names, sorted.
    public var typeNames: [String] { entries.keys.sorted() }

    /// Registered declarations, sorted by type name.
    public var descriptors: [NodeDescriptor] { typeNames.compactMap { entries[$0]?.descriptor } }
}

/// Rules for node ids and type names.
public enum NodeIdentifier {
    /// Letters, digits, `-` and `_`, not empty.
    public static func isValid(_ id: String) -> Bool {
        !id.isEmpty && id.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
        }
    }
}
