/// What a call's graph keeps to give each participant who connects a branch of their own: the config's
/// `participant` block (`ParticipantTemplate`), built once at load time with the whole graph so every error is
/// found before any audio flows, and again for each participant with their format and name.
///
/// A branch is the block's nodes (and any resampler the builder inserted in it); its links into the graph's own
/// nodes (the shared targets: caption sinks, the store) are joined to those nodes while they run.
public struct ParticipantBranches: Sendable {
    let builder: GraphBuilder
    /// The graph's config with the participant block's nodes and links added (as if one participant were there).
    let combined: GraphSpec
    /// The block's `participant-source`.
    let sourceID: String
    /// The graph's own nodes that the block links to, with how many links each gets from one branch.
    public let sharedTargets: [String: Int]
    /// The audio format each shared target takes from a branch (nil: it takes no audio).
    let sharedInputFormats: [String: AudioFormat]

    /// One participant's branch, built and not started.
    public struct Branch {
        public let participant: String
        /// The branch's nodes in topological order, the participant-source first.
        public let nodes: [Graph.Node]
        /// Links between the branch's nodes.
        public let links: [Graph.Link]
        /// Links from the branch's nodes to the graph's own (shared) nodes.
        public let sharedLinks: [Graph.Link]
    }

    /// Builds `participant`'s branch for audio in `format`: the block's nodes with `participant-source` set to
    /// that format and name, and a resampler inserted where the block needs one (unless `strictFormats`).
    public func build(participant: String, format: AudioFormat) throws(GraphError) -> Branch {
        var spec = combined
        for index in spec.nodes.indices where spec.nodes[index].id == sourceID {
            spec.nodes[index].parameters["sampleRate"] = .number(Double(format.sampleRate))
            spec.nodes[index].parameters["channels"] = .number(Double(format.channels))
            spec.nodes[index].speaker = participant
        }
        let graph = try builder.buildWithoutParticipants(spec)
        let branchIDs = Self.branchIDs(of: graph, source: sourceID, shared: Set(sharedTargets.keys))
        let sharedLinks = graph.links.filter { branchIDs.contains($0.from) && !branchIDs.contains($0.to) }
        for link in sharedLinks where link.kinds.contains(.audio) {
            guard let wanted = sharedInputFormats[link.to], link.format == nil || link.format == wanted else {
                throw GraphError(.invalidConfig, at: "participant.links",
                                 "\(participant)'s audio reaches \"\(link.to)\" as \(link.format.map { "\($0)" } ?? "no format") "
                                    + "but it takes \(sharedInputFormats[link.to].map { "\($0)" } ?? "none"); "
                                    + "put a resampler with a fixed sampleRate and channels before it in the participant block")
            }
        }
        return Branch(participant: participant,
                      nodes: graph.nodes.filter { branchIDs.contains($0.id) },
                      links: graph.links.filter { branchIDs.contains($0.from) && branchIDs.contains($0.to) },
                      sharedLinks: sharedLinks)
    }

    /// The nodes fed, directly or not, by the participant source, short of the shared targets: the block's
    /// nodes and the converters inserted between them or on their way to a shared target.
    static func branchIDs(of graph: Graph, source: String, shared: Set<String>) -> Set<String> {
        var found: Set<String> = [source]
        var frontier = [source]
        while let id = frontier.popLast() {
            for link in graph.links where link.from == id && !shared.contains(link.to) && !found.contains(link.to) {
                found.insert(link.to)
                frontier.append(link.to)
            }
        }
        return found
    }
}

extension GraphBuilder {
    /// Checks a `participant` block against the graph and makes the spec that holds both: the block's nodes
    /// must have ids of their own, hold exactly one `participant-source`, and link only to their own nodes or
    /// to the graph's non-source nodes, which get a queue (several participants feed them at once).
    static func combine(_ spec: GraphSpec, _ template: ParticipantTemplate,
                        registry: NodeRegistry) throws(GraphError) -> (spec: GraphSpec, sourceID: String, shared: [String: Int]) {
        let path = JSONPath.root / "participant"
        let mainIDs = Set(spec.nodes.map(\.id))
        let templateIDs = Set(template.nodes.map(\.id))
        for node in template.nodes where mainIDs.contains(node.id) {
            throw .config(path / "nodes" / node.id, "\"\(node.id)\" is a node of the graph too; give the participant's "
                + "node an id of its own")
        }
        let sources = template.nodes.filter { $0.type == ParticipantTemplate.sourceType }
        guard sources.count == 1, let source = sources.first else {
            throw .config(path / "nodes", sources.isEmpty
                ? "the participant block needs one \"\(ParticipantTemplate.sourceType)\" node (the participant's audio)"
                : "the participant block has \(sources.count) \(ParticipantTemplate.sourceType) nodes; it takes one")
        }
        for node in spec.nodes where node.type == ParticipantTemplate.sourceType {
            throw .config(.root / "nodes" / node.id, "a \(ParticipantTemplate.sourceType) belongs in the \"participant\" "
                + "block, where each participant who connects gets one")
        }
        for node in template.nodes where node.type != ParticipantTemplate.sourceType {
            if registry.entry(for: node.type)?.descriptor.category == .source {
                throw .config(path / "nodes" / node.id, "a participant's audio comes from its \(ParticipantTemplate.sourceType); "
                    + "put other sources in the graph's own \"nodes\"")
            }
        }
        var shared: [String: Int] = [:]
        for link in template.links {
            guard templateIDs.contains(link.from.node) else {
                throw .config(link.path, "\"\(link.from.node)\" is not a node of the participant block: its links start "
                    + "at its own nodes")
            }
            if !templateIDs.contains(link.to.node) {
                guard let target = spec.nodes.first(where: { $0.id == link.to.node }) else { continue }  // the build names it
                if registry.entry(for: target.type)?.descriptor.category == .source {
                    throw .config(link.path, "\"\(target.id)\" is a source; nothing links to it")
                }
                shared[target.id, default: 0] += 1
            }
        }
        for link in spec.links where templateIDs.contains(link.from.node) || templateIDs.contains(link.to.node) {
            throw .config(link.path, "the graph's links cannot reach the participant block's nodes (each participant has "
                + "their own); link them in \"participant.links\"")
        }
        var combined = spec
        combined.participant = nil
        for index in combined.nodes.indices where shared[combined.nodes[index].id] != nil && combined.nodes[index].queue == nil {
            combined.nodes[index].queue = 256
        }
        combined.nodes += template.nodes
        combined.links += template.links
        return (combined, source.id, shared)
    }
}
