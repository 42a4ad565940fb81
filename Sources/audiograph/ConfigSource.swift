import AudioGraph
import Foundation

/// Where `run` and `validate` take their pipeline from: a CONFIG file, a stream (`-`, /dev/stdin, `<(…)`), or
/// an inline pipeline (`-e 'file-source path=in.wav ! wav-sink path=out.wav'`).
struct ConfigSource {
    /// The config, `--set` applied.
    let spec: GraphSpec
    /// How messages name it.
    let name: String
    /// For `-e`: the equivalent JSON config (`--set` applied), as `validate -e … --print-config` prints it.
    let inlineConfig: String?

    init(_ args: Arguments, registry: NodeRegistry) throws(GraphError) {
        let overrides = args.values("--set")
        if let expression = args.value("-e") {
            _ = try args.requirePositionals([])
            var root = try InlinePipeline.config(expression, registry: registry)
            for override in overrides { try ConfigLoader.apply(override: override, to: &root) }
            let text = JSONWriter.pretty(root) + "\n"
            spec = try ConfigLoader.parse(text, baseDirectory: FileManager.default.currentDirectoryPath, fileName: "-e")
            name = "the -e pipeline"
            inlineConfig = text
        } else {
            if args.positionals.isEmpty {
                throw GraphError(.usage, at: "", "missing CONFIG (a file, - for standard input, or -e 'PIPELINE'); see --help")
            }
            let config = try args.requirePositionals(["config"])[0]
            spec = try ConfigLoader.load(source: config, overrides: overrides)
            name = config == "-" ? "stdin" : config
            inlineConfig = nil
        }
    }

    func graph(registry: NodeRegistry) throws(GraphError) -> Graph {
        try loadGraph(spec: spec, registry: registry, warn: { printError("audiograph: warning: \($0)") })
    }
}
