import Foundation

/// Validates and builds a graph from a loaded config (`ConfigLoader.load(source:)`, an inline pipeline): the
/// built-in node types (or `registry`), plus the plugins the config names and those on `AUDIOGRAPH_PLUGIN_PATH`.
public func loadGraph(spec: GraphSpec, registry: NodeRegistry = .builtins,
                      environment: [String: String] = ProcessInfo.processInfo.environment,
                      warn: (String) -> Void = { _ in }) throws(GraphError) -> Graph {
    var registry = registry
    try Plugins.prepare(spec, registry: &registry, environment: environment, warn: warn)
    return try GraphBuilder(registry: registry).build(spec)
}
