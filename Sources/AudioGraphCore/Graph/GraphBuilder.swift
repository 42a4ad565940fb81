import Foundation

/// Turns a `GraphSpec` into a runnable `Graph`: checks node types and parameters, resolves links and ports,
/// rejects cycles, unconnected nodes and links whose consumer needs frames the producer cannot make, creates
/// the node instances and settles every link's audio format (inserting a resampler where two differ, unless
/// `strictFormats`).
public struct GraphBuilder: Sendable {
    public var registry: NodeRegistry
    /// The node type inserted between two audio formats.
    public var converterType = "resampler"

    public init(registry: NodeRegistry) {
        self.registry = registry
    }

    private struct Pending {
        var spec: NodeSpec
        var entry: NodeRegistry.Entry
        var configuration: NodeConfiguration
        var autoInserted = false
    }

    private struct ResolvedLink {
        var from: String
        var fromPort: Int
        var to: String
        var toPort: Int
        var path: JSONPath
        var autoInserted = false
    }

    /// Builds `spec` with this builder's registry. `spec.plugins` are not loaded here: `loadGraph` (or
    /// `Plugins.load`) loads them into the registry first. Output paths may name the input file
    /// (`InputTemplates`: `{stem}`, `{name}`, `{dir}`, `{session}`).
    ///
    /// A spec with a `participant` block (a call) is built whole, as if one participant had connected, so every
    /// error in the block is found now; the graph returned holds the graph's own nodes, and `Graph.participants`
    /// builds each participant's branch when they connect.
    public func build(_ spec: GraphSpec) throws(GraphError) -> Graph {
        guard let template = spec.participant else { return try buildWithoutParticipants(spec) }
        let (combined, sourceID, shared) = try Self.combine(spec, template, registry: registry)
        let whole = try buildWithoutParticipants(combined)
        let branchIDs = ParticipantBranches.branchIDs(of: whole, source: sourceID, shared: Set(shared.keys))
        var formats: [String: AudioFormat] = [:]
        for node in whole.nodes where shared[node.id] != nil {
            if let format = node.inputFormat { formats[node.id] = format }
        }
        let branches = ParticipantBranches(builder: self, combined: combined, sourceID: sourceID, sharedTargets: shared, sharedInputFormats: formats)
        return Graph(nodes: whole.nodes.filter { !branchIDs.contains($0.id) },
                     links: whole.links.filter { !branchIDs.contains($0.from) && !branchIDs.contains($0.to) },
                     session: whole.session, serve: whole.serve, notes: whole.notes, pathUses: whole.pathUses,
                     participants: branches, speakers: whole.speakers.filter { !branchIDs.contains($0.key) })
    }

    /// `build` for a spec without a `participant` block.
    func buildWithoutParticipants(_ spec: GraphSpec) throws(GraphError) -> Graph {
        let spec = try InputTemplates.expand(spec, registry: registry)
        var pending: [String: Pending] = [:]
        var order: [String] = []
        var pathUses = PathUse.configInputs(of: spec)
        for node in spec.nodes {
            let path = JSONPath.root / "nodes" / node.id
            guard NodeIdentifier.isValid(node.id) else {
                throw .config(path, "bad node id \"\(node.id)\": use letters, digits, '-' and '_'")
            }
            guard pending[node.id] == nil else { throw .config(path, "duplicate node id \"\(node.id)\"") }
            guard let entry = registry.entry(for: node.type) else {
                throw .config(path / "type", "unknown node type \"\(node.type)\""
                    + Suggestions.hint(for: node.type, in: registry.typeNames) + "; see `audiograph nodes`")
            }
            if node.queue != nil && entry.descriptor.category == .source {
                throw .config(path / "queue", "a source has no input to queue; give \"queue\" to the node it feeds")
            }
            if node.speaker != nil && entry.descriptor.category != .source {
                throw .config(path / "speaker", "only a source names who speaks in its audio; give \"speaker\" to the "
                    + "source that feeds \"\(node.id)\"")
            }
            let values = try ParameterValidation.validate(node.parameters, against: entry.descriptor, at: path)
            let uses = PathUse.uses(of: values, entry.descriptor, baseDirectory: spec.baseDirectory, at: path)
            // An input the config names must be there now. A default input path (an engine's default model) is the
            // node's to check: it can say how to install it (exit 69). Both count in the clash check below.
            let named = Set(node.parameters.keys.map { (path / $0).description })
            try PathUse.checkInputs(uses.filter { named.contains($0.location) })
            pathUses += uses
            let configuration = NodeConfiguration(id: node.id, type: node.type, values: values,
                                                  baseDirectory: spec.baseDirectory, session: spec.session)
            pending[node.id] = Pending(spec: node, entry: entry, configuration: configuration)
            order.append(node.id)
        }
        if order.isEmpty { throw .config(.root / "nodes", "the graph has no nodes") }
        // Before any node opens a file: no output may be an input, nor one output another's file.
        try PathUse.checkConflicts(pathUses)

        var links = try resolveLinks(spec.links, pending)
        try checkConnected(order, pending, links)
        order = try topologicalOrder(order, links)

        // Create instances, then settle kinds and formats in topological order.
        var instances: [String: any AudioNode] = [:]
        for id in order {
            instances[id] = try instantiate(pending[id]!)
        }
        var notes = order.flatMap { (instances[$0] as? any NoteReporting)?.buildNotes ?? [] }
        var built: [String: Graph.Node] = [:]
        var builtLinks: [Graph.Link] = []
        var position = 0
        while position < order.count {
            let id = order[position]
            position += 1
            let node = pending[id]!
            let instance = instances[id]!
            let incoming = links.filter { $0.to == id }

            // Frame kinds and the input audio format come from what feeds the node.
            var inputKinds = Set<FrameKind>()
            var inputFormat: AudioFormat?
            var needsConversion: (link: ResolvedLink, format: AudioFormat)?
            for link in incoming {
                let upstream = built[link.from]!
                let kinds = upstream.outputKinds[link.fromPort]
                let port = node.entry.descriptor.inputs[link.toPort]
                let missing = port.requires.subtracting(kinds)
                if !missing.isEmpty {
                    throw .config(link.path, "\(node.entry.descriptor.type) \"\(id)\" needs "
                        + missing.sorted().map(\.name).joined(separator: ", ") + " frames, but \"\(link.from)\" ("
                        + upstream.descriptor.type + ") makes only " + Self.describe(kinds)
                        + "; link it after a node that makes them")
                }
                inputKinds.formUnion(kinds)
                if kinds.contains(.audio), let format = upstream.outputFormat {
                    if !instance.acceptedFormats.accepts(format) {
                        // Converted below; the node is revisited with the converter feeding it.
                        needsConversion = (link, format)
                    } else {
                        if let existing = inputFormat, existing != format {
                            throw .config(link.path, "\"\(id)\" is fed two audio formats (\(existing) and \(format))")
                        }
                        inputFormat = format
                    }
                }
            }

            if let (link, format) = needsConversion {
                let target = instance.acceptedFormats.closest(to: format)
                let what = "\"\(link.from)\" outputs \(format) but \(node.entry.descriptor.type) \"\(id)\" accepts "
                    + "\(instance.acceptedFormats)"
                if spec.strictFormats || pending[link.from]!.autoInserted {
                    throw .config(link.path, what + "; add a resampler between them or drop \"strictFormats\"")
                }
                // Insert a converter node and revisit this node with the converter feeding it.
                let converterID = uniqueID("\(link.from)-to-\(id)", taken: pending)
                let converter = try makeConverter(id: converterID, target: target, spec: spec, path: link.path)
                pending[converterID] = converter
                instances[converterID] = try instantiate(converter)
                links.removeAll { $0.from == link.from && $0.fromPort == link.fromPort && $0.to == id && $0.toPort == link.toPort }
                links.append(ResolvedLink(from: link.from, fromPort: link.fromPort, to: converterID, toPort: 0,
                                          path: link.path, autoInserted: true))
                links.append(ResolvedLink(from: converterID, fromPort: 0, to: id, toPort: link.toPort,
                                          path: link.path, autoInserted: true))
                order.insert(converterID, at: position - 1)
                position -= 1
                notes.append("inserted \(converterType) \"\(converterID)\" between \"\(link.from)\" and \"\(id)\": \(format) -> \(target)")
                continue
            }

            let outputFormat: AudioFormat?
            do {
                outputFormat = try instance.outputFormat(for: inputFormat)
            } catch {
                throw Self.wrap(error, node: node.configuration, code: .invalidConfig)
            }
            let outputKinds = node.entry.descriptor.outputs.map { port -> Set<FrameKind> in
                var kinds = port.produces
                if port.forwardsInput { kinds.formUnion(inputKinds) }
                if outputFormat == nil { kinds.remove(.audio) }
                return kinds
            }
            var capacity: Int?
            switch node.entry.descriptor.execution {
            case .inline: capacity = incoming.count > 1 ? 64 : nil  // a queue serializes several feeders
            case .queued(let c): capacity = c
            }
            if let queue = node.spec.queue { capacity = queue }  // the config's "queue" key
            built[id] = Graph.Node(id: id, descriptor: node.entry.descriptor, instance: instance,
                                   configuration: node.configuration, inputFormat: inputFormat,
                                   outputFormat: outputFormat, autoInserted: node.autoInserted,
                                   inputKinds: inputKinds, outputKinds: outputKinds, queueCapacity: capacity)
        }
        for link in links {
            let from = built[link.from]!
            let kinds = from.outputKinds[link.fromPort]
            builtLinks.append(Graph.Link(from: link.from, fromPort: link.fromPort, to: link.to, toPort: link.toPort,
                                         format: kinds.contains(.audio) ? from.outputFormat : nil, kinds: kinds,
                                         autoInserted: link.autoInserted))
        }
        // Who speaks in what each node handles: a source's `speaker`, passed down while every feeder agrees.
        var speakers: [String: String] = [:]
        for id in order {
            if let speaker = pending[id]!.spec.speaker {
                speakers[id] = speaker
                continue
            }
            let heard = Set(links.filter { $0.to == id }.map { speakers[$0.from] })
            if heard.count == 1, let only = heard.first, let speaker = only { speakers[id] = speaker }
        }
        return Graph(nodes: order.map { built[$0]! }, links: builtLinks, session: spec.session, serve: spec.serve, notes: notes,
                     pathUses: pathUses, speakers: speakers)
    }

    static func describe(_ kinds: Set<FrameKind>) -> String {
        kinds.isEmpty ? "no frames" : kinds.sorted().map(\.name).joined(separator: ", ")
    }

    private func uniqueID(_ base: String, taken: [String: Pending]) -> String {
        var id = base
        var n = 2
        while taken[id] != nil {
            id = "\(base)-\(n)"
            n += 1
        }
        return id
    }

    private func makeConverter(id: String, target: AudioFormat, spec: GraphSpec, path: JSONPath) throws(GraphError) -> Pending {
        guard let entry = registry.entry(for: converterType) else {
            throw .config(path, "formats differ and no \"\(converterType)\" node type is registered to convert them")
        }
        let parameters = JSONObject([("sampleRate", .number(Double(target.sampleRate))),
                                     ("channels", .number(Double(target.channels)))])
        let values = try ParameterValidation.validate(parameters, against: entry.descriptor, at: .root / "nodes" / id)
        let configuration = NodeConfiguration(id: id, type: converterType, values: values,
                                              baseDirectory: spec.baseDirectory, session: spec.session)
        return Pending(spec: NodeSpec(id: id, type: converterType, parameters: parameters), entry: entry,
                       configuration: configuration, autoInserted: true)
    }

    private func instantiate(_ node: Pending) throws(GraphError) -> any AudioNode {
        do {
            return try node.entry.make(node.configuration)
        } catch {
            throw Self.wrap(error, node: node.configuration, code: .invalidConfig)
        }
    }

    /// Any error a node throws, as a `GraphError` that names the node.
    public static func wrap(_ error: any Error, node: NodeConfiguration, code: GraphError.Code) -> GraphError {
        if var graphError = error as? GraphError {
            if graphError.nodeID == nil { graphError.nodeID = node.id }
            return graphError
        }
        return GraphError(code, at: "node \(node.id)", "\(error)", node: node.id)
    }

    private func resolveLinks(_ specs: [LinkSpec], _ nodes: [String: Pending]) throws(GraphError) -> [ResolvedLink] {
        var resolved: [ResolvedLink] = []
        var fedPorts: [String: JSONPath] = [:]
        for link in specs {
            guard let from = nodes[link.from.node] else {
                throw .config(link.path, "no node \"\(link.from.node)\"" + Suggestions.hint(for: link.from.node, in: Array(nodes.keys)))
            }
            guard let to = nodes[link.to.node] else {
                throw .config(link.path, "no node \"\(link.to.node)\"" + Suggestions.hint(for: link.to.node, in: Array(nodes.keys)))
            }
            let outputs = from.entry.descriptor.outputs
            let inputs = to.entry.descriptor.inputs
            guard !outputs.isEmpty else {
                throw .config(link.path, "\"\(link.from.node)\" (\(from.spec.type)) has no outputs; it can only end a chain")
            }
            guard !inputs.isEmpty else {
                throw .config(link.path, "\"\(link.to.node)\" (\(to.spec.type)) has no inputs; it can only start a chain")
            }
            let fromPort = try portIndex(link.from, names: outputs.map(\.name), direction: "output", link.path)
            let toPort = try portIndex(link.to, names: inputs.map(\.name), direction: "input", link.path)
            if link.from.node == link.to.node {
                throw .config(link.path, "\"\(link.from.node)\" is linked to itself")
            }
            let key = "\(link.to.node).\(toPort)"
            if let earlier = fedPorts[key], !inputs[toPort].acceptsManyLinks {
                throw .config(link.path, "input \"\(link.to)\" is already fed by the link at \(earlier); an input takes one link")
            }
            fedPorts[key] = link.path
            resolved.append(ResolvedLink(from: link.from.node, fromPort: fromPort, to: link.to.node, toPort: toPort,
                                         path: link.path))
        }
        return resolved
    }

    private func portIndex(_ endpoint: Endpoint, names: [String], direction: String,
                           _ path: JSONPath) throws(GraphError) -> Int {
        guard let port = endpoint.port else { return 0 }
        guard let index = names.firstIndex(of: port) else {
            throw .config(path, "\"\(endpoint.node)\" has no \(direction) port \"\(port)\""
                + Suggestions.hint(for: port, in: names) + "; its \(direction)s: " + names.joined(separator: ", "))
        }
        return index
    }

    private func checkConnected(_ order: [String], _ nodes: [String: Pending], _ links: [ResolvedLink]) throws(GraphError) {
        for id in order {
            let node = nodes[id]!
            let path = JSONPath.root / "nodes" / id
            let fed = links.contains { $0.to == id }
            let feeds = links.contains { $0.from == id }
            if !fed && !feeds {
                throw .config(path, "node \"\(id)\" is not linked to anything; add it to \"links\" or remove it")
            }
            if !node.entry.descriptor.inputs.isEmpty && !fed {
                throw .config(path, "\(node.spec.type) \"\(id)\" has nothing feeding it; link a source to it")
            }
        }
    }

    private func topologicalOrder(_ order: [String], _ links: [ResolvedLink]) throws(GraphError) -> [String] {
        var indegree: [String: Int] = [:]
        for id in order { indegree[id] = 0 }
        for link in links { indegree[link.to, default: 0] += 1 }
        var ready = order.filter { indegree[$0] == 0 }
        var sorted: [String] = []
        while !ready.isEmpty {
            let id = ready.removeFirst()
            sorted.append(id)
            for link in links where link.from == id {
                indegree[link.to]! -= 1
                if indegree[link.to] == 0 { ready.append(link.to) }
            }
        }
        if sorted.count < order.count {
            let inCycle = order.filter { !sorted.contains($0) }
            let path = links.first { inCycle.contains($0.to) && inCycle.contains($0.from) }?.path ?? .root / "links"
            throw .config(path, "the links form a cycle through " + inCycle.map { "\"\($0)\"" }.joined(separator: ", ")
                + "; audio must flow one way")
        }
        return sorted
    }
}
