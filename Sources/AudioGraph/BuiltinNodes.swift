extension NodeRegistry {
    /// The built-in node types: what `audiograph` uses and what embedders usually start from.
    ///
    /// ```swift
    /// var registry = NodeRegistry.builtins
    /// try registry.register(MyGainNode.self, origin: "my app")
    /// ```
    public static var builtins: NodeRegistry {
        var registry = NodeRegistry()
        let types: [any AudioNode.Type] = [
            FileSourceNode.self,
            MicSourceNode.self,
            ResamplerNode.self,
            LevelMeterNode.self,
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

/// Loads, validates and builds a graph from a config file with the built-in node types, in one call.
public func loadGraph(configPath: String, overrides: [String] = [],
                      registry: NodeRegistry = .builtins) throws(GraphError) -> Graph {
    let spec = try ConfigLoader.load(path: configPath, overrides: overrides)
    return try GraphBuilder(registry: registry).build(spec)
}

extension VoiceCaptureSession {
    /// A session that builds with the built-in node types.
    public init(configuration: Configuration = Configuration()) {
        self.init(configuration: configuration, registry: .builtins)
    }
}
