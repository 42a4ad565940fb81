/// Parameters that come with a choice made by another parameter: a recognizer's engine brings its own (`hmm` for
/// pocketsphinx, `model` for whisper). A node type declares the choosing parameter (the selector) and where the
/// groups come from; config validation, path checks, `audiograph inspect`, the JSON Schema and the docs read the
/// chosen group's parameters as if the descriptor declared them, and refuse another group's.
///
/// Any node type may use it (an embedder's or a plugin host's): set `NodeDescriptor.parameterGroups`.
public struct ParameterGroups: Sendable {
    /// One choice's own parameters.
    public struct Group: Sendable {
        /// The selector value that picks it (`pocketsphinx`).
        public var name: String
        public var summary: String
        public var parameters: [ParameterSpec]
        /// Part of the build (listed in docs/nodes.md), rather than registered at run time by a test, an embedder
        /// or a plugin (listed by `audiograph inspect` only).
        public var builtIn: Bool

        public init(name: String, summary: String, parameters: [ParameterSpec], builtIn: Bool = true) {
            self.name = name
            self.summary = summary
            self.parameters = parameters
            self.builtIn = builtIn
        }

        /// Whether the group declares a parameter of this name.
        public func declares(_ parameter: String) -> Bool { parameters.contains { $0.name == parameter } }
    }

    /// The node's own parameter whose value picks a group (`engine`); it must be one of the descriptor's parameters.
    public var selector: String
    /// Every group, in the order shown. Read when needed: groups may be registered after the descriptor is made.
    public var all: @Sendable () -> [Group]
    /// The group a selector value picks (a value such as `auto` may stand for one); nil when it picks none.
    public var resolve: @Sendable (String) -> Group?

    public init(selector: String, all: @escaping @Sendable () -> [Group],
                resolve: @escaping @Sendable (String) -> Group?) {
        self.selector = selector
        self.all = all
        self.resolve = resolve
    }
}

extension NodeDescriptor {
    /// The group the validated `values` pick (nil without groups, or when the selector picks none).
    public func parameterGroup(for values: JSONObject) -> ParameterGroups.Group? {
        guard let groups = parameterGroups, let choice = values[groups.selector]?.stringValue else { return nil }
        return groups.resolve(choice)
    }

    /// The node's own parameters and those of the group the validated `values` pick.
    public func parameters(for values: JSONObject) -> [ParameterSpec] {
        parameters + (parameterGroup(for: values)?.parameters ?? [])
    }
}

