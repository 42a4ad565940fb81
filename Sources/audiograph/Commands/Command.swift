import AudioGraph

/// One subcommand: its name, help text and what it does. Commands are values, like swift-argument-parser's.
protocol Command {
    static var name: String { get }
    static var abstract: String { get }
    static var usage: String { get }
    static var help: String { get }
    /// The options it takes: parsing and the shell completion use these.
    static var options: CommandOptions { get }
    /// Runs the command and returns the exit status. Throws `GraphError` for failures that exit with its code.
    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32
}

enum CLI {
    static let version = AudioGraphVersion.current

    static var commands: [any Command.Type] { [
        TranscribeCommand.self, RunCommand.self, ValidateCommand.self, NodesCommand.self, InspectCommand.self, SchemaCommand.self, DocsCommand.self, CaptureCommand.self,
        TranscriptsCommand.self, CallsCommand.self, ServeCommand.self, TokensCommand.self, JoinCommand.self, PluginsCommand.self, BatchCommand.self, WorkerCommand.self,
        ModelsCommand.self, CompletionCommand.self,
    ] }

    static var overview: String {
        var lines = [
            "audiograph \(version): build audio pipelines from a JSON file and run them.",
            "",
            "USAGE: audiograph <command> [options]",
            "",
            "COMMANDS:",
        ]
        for command in commands {
            lines.append("  " + command.name.padding(toLength: 13, withPad: " ", startingAt: 0) + command.abstract)
        }
        lines += [
            "",
            "OPTIONS:",
            "  --help      Show help (also: audiograph <command> --help)",
            "  --version   Show the version (also: -V, audiograph version)",
            "",
            "EXIT CODES: 0 ok, 64 usage, 65 bad config or data, 66 missing input, 69 unavailable,",
            "  70 a node failed, 73 cannot create output, 74 I/O error, 77 permission denied (a server refused the token),",
            "  130 interrupted (outputs finalized).",
        ]
        return lines.joined(separator: "\n")
    }

    /// Dispatches `arguments` (without the program name) and returns the exit status.
    static func main(_ arguments: [String], registry: @autoclosure () -> NodeRegistry = pluginRegistry()) -> Int32 {
        guard let first = arguments.first else {
            printError(overview)
            return GraphError.Code.usage.exitCode
        }
        if first == "--help" || first == "-h" || first == "help" {
            if first == "help", arguments.count > 1 {
                guard let command = commands.first(where: { $0.name == arguments[1] }) else {
                    report(unknownCommand(arguments[1]))
                    return GraphError.Code.usage.exitCode
                }
                printOut(command.help)
            } else {
                printOut(overview)
            }
            return 0
        }
        if first == "--version" || first == "-V" || first == "version" {
            printOut("audiograph \(version)")
            return 0
        }
        guard let command = commands.first(where: { $0.name == first }) else {
            report(unknownCommand(first))
            return GraphError.Code.usage.exitCode
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            printOut(command.help)
            return 0
        }
        do {
            return try command.run(rest, registry: registry())
        } catch {
            report(error)
            return error.code.exitCode
        }
    }

    /// The built-ins and the plugins on AUDIOGRAPH_PLUGIN_PATH; a plugin that does not load is a warning.
    static func pluginRegistry() -> NodeRegistry {
        NodeRegistry.builtinsAndPluginPath { printError("audiograph: warning: \($0) (see audiograph plugins)") }
    }

    static func unknownCommand(_ name: String) -> GraphError {
        GraphError(.usage, at: name, "unknown command" + Suggestions.hint(for: name, in: commands.map { $0.name })
            + "; commands: " + commands.map { $0.name }.joined(separator: ", "))
    }

    /// `audiograph: <where>: <what>` on stderr.
    static func report(_ error: GraphError) {
        printError("audiograph: \(error)")
    }
}
