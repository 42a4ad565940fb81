/// A validated graph, ready to run: node instances in topological order, their negotiated formats, and the
/// links between them. Made by `GraphBuilder`; run by `GraphRuntime`.
///
/// Not thread-safe: it owns the node instances, and hands them to one runtime.
public final class Graph {
    /// One node of a built graph.
    public struct Node {
        public let id: String
        public let descriptor: NodeDescriptor
        public let instance: any AudioNode
        public let configuration: NodeConfiguration
        public let inputFormat: AudioFormat?
        public let outputFormat: AudioFormat?
        /// Inserted by the builder (a resampler between two formats), not written in the config.
        public let autoInserted: Bool
        /// Frame kinds that can arrive on the node's inputs.
        public let inputKinds: Set<FrameKind>
        /// Frame kinds available on each output port.
        public let outputKinds: [Set<FrameKind>]
        /// Queued with this capacity, or inline (nil).
        public let queueCapacity: Int?
    }

    /// One link of a built graph.
    public struct Link: Hashable, CustomStringConvertible {
        public let from: String
        public let fromPort: Int
        public let to: String
        public let toPort: Int
        public let format: AudioFormat?
        public let kinds: Set<FrameKind>
        public let autoInserted: Bool

        public var description: String { "\(from) -> \(to)" }
    }

    public let nodes: [Node]
    public let links: [Link]
    public let session: SessionSettings
    /// The config's `serve` block, when it has one.
    public let serve: ServeSettings?
    /// What the builder changed or wants the user to know (inserted resamplers).
    public let notes: [String]
    /// Every file the config reads or writes (the config file, plugins, each node's path parameters), as the
    /// builder checked them. A command that writes a file of its own beside the graph (`--dot`) checks it
    /// against these with `PathUse.checkConflicts`, so it can never overwrite an input.
    public let pathUses: [PathUse]

    /// A call's per-participant branches (the config's `participant` block), nil for a graph without one. Its
    /// shared targets are nodes of this graph that take any number of participants.
    public let participants: ParticipantBranches?
    /// Who speaks in what each node handles (node id → name): a source's `speaker`, and every node fed only by
    /// sources of that speaker. The runtime labels the transcripts these nodes make with it.
    public let speakers: [String: String]

    init(nodes: [Node], links: [Link], session: SessionSettings, serve: ServeSettings? = nil, notes: [String],
         pathUses: [PathUse] = [], participants: ParticipantBranches? = nil, speakers: [String: String] = [:]) {
        self.participants = participants
        self.speakers = speakers
        self.pathUses = pathUses
        self.serve = serve
        self.nodes = nodes
        self.links = links
        self.session = session
        self.notes = notes
    }

    public func node(_ id: String) -> Node? { nodes.first { $0.id == id } }

    /// The nodes whose instances are of type `T`, e.g. every recognizer, found by role, not by type name.
    public func instances<T>(of type: T.Type) -> [T] { nodes.compactMap { $0.instance as? T } }

    /// A human-readable listing: nodes with formats, links with what they carry, auto-inserted parts marked.
    public var summary: String {
        var lines: [String] = []
        let idWidth = nodes.map(\.id.count).max() ?? 0
        let typeWidth = nodes.map(\.descriptor.type.count).max() ?? 0
        lines.append("nodes:")
        for node in nodes {
            let formats: String
            switch (node.inputFormat, node.outputFormat) {
            case (nil, nil): formats = "(no audio)"
            case (let input?, nil): formats = "takes \(input)"
            case (nil, let output?): formats = "-> \(output)"
            case (let input?, let output?): formats = input == output ? "\(input)" : "\(input) -> \(output)"
            }
            let mode = node.queueCapacity.map { "  [queued \($0)]" } ?? ""
            let mark = node.autoInserted ? "  (auto-inserted)" : ""
            lines.append("  " + node.id.padding(toLength: idWidth, withPad: " ", startingAt: 0) + "  "
                + node.descriptor.type.padding(toLength: typeWidth, withPad: " ", startingAt: 0) + "  " + formats + mode + mark)
        }
        lines.append("links:")
        for link in links {
            let carried = link.kinds.sorted().map { kind in
                kind == .audio ? (link.format.map { "audio \($0)" } ?? "audio") : kind.name
            }.joined(separator: ", ")
            lines.append("  \(link.from) -> \(link.to): \(carried)" + (link.autoInserted ? "  (auto-inserted)" : ""))
        }
        for note in notes { lines.append("note: \(note)") }
        return lines.joined(separator: "\n")
    }
}
