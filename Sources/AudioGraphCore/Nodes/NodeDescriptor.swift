/// Everything the graph needs to know about a node type without running it: its name, parameters, ports, the
/// frame kinds it consumes and produces, the audio formats it accepts and how it is scheduled.
public struct NodeDescriptor: Sendable {
    public enum Category: String, Sendable {
        /// Has no inputs; produces a stream (`file-source`, `mic-source`).
        case source
        /// Has inputs and outputs.
        case filter
        /// Has inputs only (`wav-sink`, `caption-sink`).
        case sink
    }

    /// How the runtime calls the node.
    public enum Execution: Sendable, Equatable {
        /// On the thread of whoever feeds it, synchronously (DSP; must not block).
        case inline
        /// On a thread of its own behind a bounded queue of `capacity` frames (slow work: recognizers, disk and
        /// network sinks), so a slow node never delays the nodes beside it.
        case queued(capacity: Int)
    }

    public struct InputPort: Sendable {
        public var name: String
        /// Frame kinds the node needs from whatever feeds this port; the builder rejects a link that cannot
        /// carry all of them.
        public var requires: Set<FrameKind>
        /// Whether any number of links may feed this port (a mixer's input; the node is a `MultiInputNode`).
        /// Otherwise a port takes one link.
        public var acceptsManyLinks: Bool
        public init(_ name: String = "in", requires: Set<FrameKind>, acceptsManyLinks: Bool = false) {
            self.name = name
            self.requires = requires
            self.acceptsManyLinks = acceptsManyLinks
        }
    }

    public struct OutputPort: Sendable {
        public var name: String
        /// Frame kinds the node makes itself on this port.
        public var produces: Set<FrameKind>
        /// Whether everything arriving on the node's inputs is passed on through this port too.
        public var forwardsInput: Bool
        public init(_ name: String = "out", produces: Set<FrameKind>, forwardsInput: Bool) {
            self.name = name
            self.produces = produces
            self.forwardsInput = forwardsInput
        }
    }

    public var type: String
    public var summary: String
    public var category: Category
    public var parameters: [ParameterSpec]
    public var inputs: [InputPort]
    public var outputs: [OutputPort]
    /// Audio formats the node's inputs accept; the builder inserts a resampler (or reports an error under
    /// `strictFormats`) when the upstream format is not one of them.
    public var acceptedFormats: FormatRequirement
    public var execution: Execution
    /// Parameters that a choice brings with it (a recognizer's engine's own), beside `parameters`.
    public var parameterGroups: ParameterGroups?

    public init(type: String, summary: String, category: Category, parameters: [ParameterSpec],
                inputs: [InputPort], outputs: [OutputPort], acceptedFormats: FormatRequirement = .any,
                execution: Execution = .inline, parameterGroups: ParameterGroups? = nil) {
        self.type = type
        self.summary = summary
        self.category = category
        self.parameters = parameters
        self.inputs = inputs
        self.outputs = outputs
        self.acceptedFormats = acceptedFormats
        self.execution = execution
        self.parameterGroups = parameterGroups
    }

    public func parameter(named name: String) -> ParameterSpec? {
        parameters.first { $0.name == name }
    }
}
