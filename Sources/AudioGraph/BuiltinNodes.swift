import Foundation
extension NodeRegistry {
    /// The built-in node types: what `audiograph` uses and what embedders usually start from.
    ///
    /// ```swift
    /// var registry = NodeRegistry.builtins
    /// try registry.register(MyGainNode.self, origin: "my app")
    /// ```
    public static var builtins: NodeRegistry {
        // The vad node's silero engine lives in the speech module (AudioGraphDSP does not link whisper).
        SileroVADEngine.register()
        var registry = NodeRegistry()
        let types: [any AudioNode.Type] = [
            FileSourceNode.self,
            ParticipantSourceNode.self,
            MicSourceNode.self,
            RTPSourceNode.self,
            ResamplerNode.self,
            LevelMeterNode.self,
            MixerNode.self,
            VADNode.self,
            WavSinkNode.self,
            AACSinkNode.self,
            RecognizerNode.self,
            CaptionSinkNode.self,
            TranscriptStoreNode.self,
        ]
        for type in types {
            // Built-in names are distinct by construction.
            try! registry.register(type)
        }
        return registry
    }
}

/// Loads, validates and builds a graph from a config file, in one call: the built-in node types (or
/// `registry`), plus the plugins the config names and those on `AUDIOGRAPH_PLUGIN_PATH` (see `Plugins.prepare`).
public func loadGraph(configPath: String, overrides: [String] = [], registry: NodeRegistry = .builtins,
                      environment: [String: String] = ProcessInfo.processInfo.environment,
                      warn: (String) -> Void = { _ in }) throws(GraphError) -> Graph {
    let spec = try ConfigLoader.load(path: configPath, overrides: overrides)
    var registry = registry
    try Plugins.prepare(spec, registry: &registry, environment: environment, warn: warn)
    return try GraphBuilder(registry: registry).build(spec)
}

extension NodeRegistry {
    /// The built-ins plus the plugins on `AUDIOGRAPH_PLUGIN_PATH` (what `audiograph nodes` lists). A plugin
    /// that does not load is skipped and reported to `warn`.
    public static func builtinsAndPluginPath(environment: [String: String] = ProcessInfo.processInfo.environment,
                                             warn: (String) -> Void = { _ in }) -> NodeRegistry {
        var registry = NodeRegistry.builtins
        for report in Plugins.load(GraphSpec(nodes: [], links: [], baseDirectory: "/"), into: &registry,
                                   environment: environment) {
            if let error = report.error { warn("plugin \(report.path) skipped: \(error)") }
        }
        return registry
    }
}

extension VoiceCaptureSession {
    /// A session that builds with the built-in node types.
    public init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, registry: .builtins)
    }
}
