import AudioGraph

struct ValidateCommand: Command {
    static let name = "validate"
    static let abstract = "Check a pipeline and print the resolved graph with its formats"
    static let usage = "audiograph validate CONFIG [--set NODE.PARAM=VALUE]..."
    static let help = """
        \(abstract).

        USAGE: \(usage)

        Prints every node with its formats and every link with what it carries; nodes the builder inserted
        (resamplers between different formats) are marked "auto-inserted". Exits 0 when the graph is valid,
        else with the error's code (65 bad config, 66 missing input, ...).
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, valued: ["--set"], flags: [])
        let config = try args.requirePositionals(["config"])[0]
        let graph = try loadGraph(configPath: config, overrides: args.values("--set"), registry: registry,
                                  warn: { printError("audiograph: warning: \($0)") })
        printOut(graph.summary)
        printOut("ok: \(config) is valid")
        return 0
    }
}

struct NodesCommand: Command {
    static let name = "nodes"
    static let abstract = "List the node types"
    static let usage = "audiograph nodes"
    static let help = """
        \(abstract) that configs can use, with a one-line summary each.

        USAGE: \(usage)

        See `audiograph inspect TYPE` for a type's parameters.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        _ = try Arguments(arguments, valued: [], flags: []).requirePositionals([])
        let width = (registry.typeNames.map(\.count).max() ?? 0) + 2
        for descriptor in registry.descriptors {
            printOut(descriptor.type.padding(toLength: width, withPad: " ", startingAt: 0) + descriptor.summary)
        }
        return 0
    }
}

struct InspectCommand: Command {
    static let name = "inspect"
    static let abstract = "Show a node type's parameters, ports and formats"
    static let usage = "audiograph inspect TYPE"
    static let help = """
        \(abstract).

        USAGE: \(usage)
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let type = try Arguments(arguments, valued: [], flags: []).requirePositionals(["type"])[0]
        guard let entry = registry.entry(for: type) else {
            throw GraphError(.usage, at: type, "unknown node type" + Suggestions.hint(for: type, in: registry.typeNames)
                + "; see `audiograph nodes`")
        }
        printOut(NodeDocumentation.inspect(entry.descriptor, origin: entry.origin))
        return 0
    }
}

struct SchemaCommand: Command {
    static let name = "schema"
    static let abstract = "Print the JSON Schema of the config format"
    static let usage = "audiograph schema"
    static let help = """
        \(abstract) (draft 2020-12), generated from the node types, for editors and CI checks.

        USAGE: \(usage)
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        _ = try Arguments(arguments, valued: [], flags: []).requirePositionals([])
        printOut(JSONWriter.pretty(ConfigSchema.make(registry)))
        return 0
    }
}
