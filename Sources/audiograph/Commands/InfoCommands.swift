import Foundation
import AudioGraph

struct ValidateCommand: Command {
    static let name = "validate"
    static let abstract = "Check a pipeline and print the resolved graph with its formats"
    static let usage = "audiograph validate CONFIG|-|-e PIPELINE [--set NODE.PARAM=VALUE]... [--print-config] [--dot FILE]"
    static let options = CommandOptions([
        .valued("-e", "PIPELINE", "The pipeline inline (gst-launch style) instead of CONFIG."),
        .valued("--set", "NODE.PARAM=VALUE", "Override a node parameter (or session.KEY); repeatable."),
        .flag("--print-config", "With -e: print the equivalent JSON config instead of the graph."),
        .valued("--dot", "FILE", "Write the resolved graph as Graphviz dot to FILE."),
    ])
    static let help = """
        \(abstract).

        USAGE: \(usage)

        Prints every node with its formats and every link with what it carries; nodes the builder inserted
        (resamplers between different formats) are marked "auto-inserted". Exits 0 when the graph is valid,
        else with the error's code (65 bad config, 66 missing input, ...). CONFIG and -e are as for `run`.

        \(options.help)
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        if args.flag("--print-config"), args.value("-e") == nil {
            throw GraphError(.usage, at: "--print-config", "prints the config an -e pipeline stands for; give -e 'PIPELINE'")
        }
        let source = try ConfigSource(args, registry: registry)
        let graph = try source.graph(registry: registry)
        if let dotPath = args.value("--dot") { try DotWriter.write(graph, to: dotPath) }
        if let text = source.inlineConfig, args.flag("--print-config") {
            Console.writeOut(text)
            return 0
        }
        printOut(graph.summary)
        printOut("ok: \(source.name) is valid")
        return 0
    }
}

struct NodesCommand: Command {
    static let name = "nodes"
    static let abstract = "List the node types"
    static let usage = "audiograph nodes"
    static let options = CommandOptions.none
    static let help = """
        \(abstract) that configs can use: each type, where it comes from (built-in, plugin, or app) and a
        summary cut to the terminal's width (COLUMNS when stdout is not a terminal; else whole lines).

        USAGE: \(usage)

        See `audiograph inspect TYPE` for a type's parameters, and `audiograph plugins` for the plugins' paths.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        _ = try Arguments(arguments, Self.options).requirePositionals([])
        let width = (registry.typeNames.map(\.count).max() ?? 0) + 2
        let originWidth = (NodeOriginKind.allCases.map(\.rawValue.count).max() ?? 0) + 2
        let columns = isatty(1) == 1 ? TerminalScreen.shared.columns(.standardOutput)
            : ProcessInfo.processInfo.environment["COLUMNS"].flatMap { Int($0) }
        for type in registry.typeNames {
            guard let entry = registry.entry(for: type) else { continue }
            let line = type.padding(toLength: width, withPad: " ", startingAt: 0)
                + entry.originKind.rawValue.padding(toLength: originWidth, withPad: " ", startingAt: 0)
                + entry.descriptor.summary
            printOut(fitted(line, to: columns))
        }
        return 0
    }

    /// `line` cut to `columns` characters with an ellipsis (unchanged without a width).
    static func fitted(_ line: String, to columns: Int?) -> String {
        guard let columns, columns > 1, line.count > columns else { return line }
        return String(line.prefix(columns - 1)) + "…"
    }
}

struct InspectCommand: Command {
    static let name = "inspect"
    static let abstract = "Show a node type's parameters, ports and formats"
    static let usage = "audiograph inspect TYPE"
    static let options = CommandOptions.none
    static let help = """
        \(abstract).

        USAGE: \(usage)
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let type = try Arguments(arguments, Self.options).requirePositionals(["type"])[0]
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
    static let options = CommandOptions.none
    static let help = """
        \(abstract) (draft 2020-12), generated from the node types, for editors and CI checks.

        USAGE: \(usage)
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        _ = try Arguments(arguments, Self.options).requirePositionals([])
        printOut(JSONWriter.pretty(ConfigSchema.make(registry)))
        return 0
    }
}
