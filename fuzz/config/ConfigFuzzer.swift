import AudioGraph
import FuzzSupport

/// libFuzzer target `config`: a config file as `audiograph validate` reads it. Leading lines
/// `--set node.param=value` are overrides; the rest is the config's text. `ConfigLoader.parse` and then
/// `GraphBuilder` with the built-in node types must answer a graph or a `GraphError`, never crash.
///
/// Relative paths resolve against examples/, so the example configs' inputs exist and their graphs build.
/// Building opens inputs (a `file-source` reads its file's header) but no outputs; a config whose input paths
/// leave examples/ (absolute, `~`, `..`) is not built, so the fuzzer reads only the repository's examples.
/// Plugins are not loaded (that is `dlopen`, not parsing).
private let examples = Fuzz.repositoryRoot + "/examples"
private let builtins = NodeRegistry.builtins

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzConfig(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    var lines = Fuzz.text(data, size).split(separator: "\n", omittingEmptySubsequences: false)
    var overrides: [String] = []
    while let first = lines.first, first.hasPrefix("--set ") {
        overrides.append(String(first.dropFirst("--set ".count)))
        lines.removeFirst()
    }
    let spec: GraphSpec
    do {
        spec = try ConfigLoader.parse(lines.joined(separator: "\n"), baseDirectory: examples, fileName: "fuzz.json",
                                      overrides: overrides)
    } catch {
        Fuzz.expect(!error.message.isEmpty, "a config error without a message at \(error.location)")
        return 0
    }
    guard inputsStayInExamples(spec) else { return 0 }
    do {
        let graph = try GraphBuilder(registry: builtins).build(spec)
        Fuzz.expect(!graph.nodes.isEmpty, "a graph built without nodes")
    } catch {
        Fuzz.expect(!error.message.isEmpty, "a build error without a message at \(error.location)")
    }
    return 0
}

/// Whether every input-file parameter of the spec's nodes is a plain relative path (inside examples/).
private func inputsStayInExamples(_ spec: GraphSpec) -> Bool {
    spec.nodes.allSatisfy { node in
        guard let descriptor = builtins.entry(for: node.type)?.descriptor else { return true }
        return descriptor.parameters.allSatisfy { parameter in
            guard parameter.kind == .path(.input), let path = node.parameters[parameter.name]?.stringValue else { return true }
            return !path.hasPrefix("/") && !path.hasPrefix("~") && !path.split(separator: "/").contains("..")
        }
    }
}
