import AudioGraph
import Foundation

struct PluginsCommand: Command {
    static let name = "plugins"
    static let abstract = "List the plugins that loaded, from where, and why any did not"
    static let usage = "audiograph plugins [CONFIG]"
    static let options =  CommandOptions.none
    static let help = """
        \(abstract): the libraries on AUDIOGRAPH_PLUGIN_PATH (a colon-separated list of .so files and folders)
        and, with CONFIG, the ones its "plugins" list names. For each: loaded (name, version, node types,
        recognizer engines) or refused, with the reason: no such file, not a shared library, no entry point,
        built for another plugin ABI, a malformed plugin, or a type name that is already taken.

        USAGE: \(usage)

        Plugin ABI: \(PluginLibrary.abiVersion). See docs/plugins.md.

        Exit codes: 0 every plugin loaded, 66 a plugin file is missing or is not a regular file (a FIFO is
        never opened), 69 a plugin was refused, 65 a bad CONFIG.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        let positionals = args.positionals
        guard positionals.count <= 1 else {
            throw GraphError(.usage, at: positionals[1], "unexpected argument; usage: \(usage)")
        }
        let spec = try positionals.first.map { path throws(GraphError) in try ConfigLoader.load(path: path) }
            ?? GraphSpec(nodes: [], links: [], baseDirectory: FileManager.default.currentDirectoryPath)
        var registry = NodeRegistry.builtins
        let reports = Plugins.load(spec, into: &registry)
        if reports.isEmpty {
            printOut("no plugins (set AUDIOGRAPH_PLUGIN_PATH, or name them in a config's \"plugins\")")
        }
        for report in reports {
            switch report.result {
            case .success(let library):
                printOut("loaded   \(report.path)  (\(report.source))")
                printOut("         \(library.name) \(library.version)")
                for type in library.nodeTypes { printOut("         node type  \(type.descriptor.type): \(type.descriptor.summary)") }
                for engine in library.engines { printOut("         engine     \(engine.name): \(engine.summary)") }
            case .failure(let error):
                printOut("refused  \(report.path)  (\(report.source))")
                printOut("         \(error)")
            }
        }
        return Plugins.firstError(reports)?.code.exitCode ?? 0
    }
}
