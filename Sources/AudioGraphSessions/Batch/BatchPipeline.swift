import AudioGraphCore
import AudioGraphStore
import Foundation

/// The pipeline a batch runs once per file: the config, with per file
/// - the one `file-source` node's `path` set to the file,
/// - `session.id` set to the line's session (default: from the file name), `session.room` to its room when it
///   has one, and `session.autoStartTranscription` on (nobody is there to press `t`),
/// - every `transcript-store` node's `store` set to the batch's store (a path or a `postgres://` URL; its `path`
///   removed), when the batch has one (`--store`).
public struct BatchPipeline: Sendable {
    public static let sourceType = "file-source"
    public static let storeType = "transcript-store"

    /// The config file, for messages.
    public let configPath: String
    public let spec: GraphSpec
    /// The id of the file-source node each file is read by.
    public let sourceNode: String
    /// The ids of the transcript-store nodes.
    public let storeNodes: [String]
    /// Where transcripts go instead of the config's store path (nil: as the config says).
    public let store: String?

    /// Loads the config at `configPath` (with `--set` overrides) and finds its file source: exactly one
    /// `file-source` node, else an `invalidConfig` error naming the config.
    public init(configPath: String, overrides: [String] = [], store: String? = nil) throws(GraphError) {
        try self.init(spec: ConfigLoader.load(path: configPath, overrides: overrides), configPath: configPath, store: store)
    }

    /// The pipeline a queue item carries (`WorkItem.pipeline`, `pipelineBase`): config text whose relative paths
    /// are from `baseDirectory`. `name` stands for the config in messages.
    public init(text: String, baseDirectory: String, name: String, overrides: [String] = [],
                store: String? = nil) throws(GraphError) {
        try self.init(spec: ConfigLoader.parse(text, baseDirectory: baseDirectory, fileName: name, overrides: overrides),
                      configPath: name, store: store)
    }

    /// The config at `configPath` as a queue stores it with each item, so a worker on another machine needs only
    /// the store: its text (with `overrides` applied) and its folder as an absolute path (what relative paths
    /// inside it are resolved against, as `ConfigLoader.load` resolves them).
    public static func queued(configPath: String, overrides: [String] = []) throws(GraphError) -> (text: String, base: String) {
        guard let data = FileManager.default.contents(atPath: configPath) else {
            throw GraphError(.missingInput, at: configPath, "cannot read the config file")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw GraphError(.invalidConfig, at: configPath, "the config file is not UTF-8 text")
        }
        let base = URL(fileURLWithPath: configPath).standardizedFileURL.deletingLastPathComponent().path
        if overrides.isEmpty { return (text, base) }
        var root: JSONValue
        do {
            root = try JSONParser.parse(text)
        } catch {
            throw GraphError(.invalidConfig, at: "\(configPath):\(error.line):\(error.column)", "invalid JSON: \(error.message)")
        }
        for override in overrides { try ConfigLoader.apply(override: override, to: &root) }
        return (JSONWriter.pretty(root) + "\n", base)
    }

    public init(spec: GraphSpec, configPath: String, store: String? = nil) throws(GraphError) {
        self.configPath = configPath
        self.spec = spec
        self.store = store
        let sources = spec.nodes.filter { $0.type == Self.sourceType }.map(\.id)
        guard sources.count == 1 else {
            throw GraphError(.invalidConfig, at: "\(configPath): nodes", sources.isEmpty
                ? "no \(Self.sourceType) node; a batch pipeline reads each manifest file with exactly one \(Self.sourceType)"
                : "\(sources.count) \(Self.sourceType) nodes (\(sources.joined(separator: ", "))); a batch pipeline needs "
                    + "exactly one, which reads each manifest file")
        }
        sourceNode = sources[0]
        storeNodes = spec.nodes.filter { $0.type == Self.storeType }.map(\.id)
    }

    /// The session id `item` runs under.
    public func sessionID(for item: WorkItem) -> String {
        item.sessionID ?? BatchManifest.defaultSessionID(for: item.path)
    }

    /// The config for one file; `workItem`, a queue item's tag (`WorkClaim.itemTag`), tags the session rows the
    /// run stores (`session.workItem`).
    public func spec(for item: WorkItem, workItem: String? = nil) -> GraphSpec {
        var spec = self.spec
        for index in spec.nodes.indices {
            if spec.nodes[index].id == sourceNode {
                spec.nodes[index].parameters["path"] = .string(item.path)
            } else if let store, spec.nodes[index].type == Self.storeType {
                // `store` takes a path or a URL; the node takes `path` or `store`, not both.
                spec.nodes[index].parameters["path"] = Optional<JSONValue>.none
                spec.nodes[index].parameters["store"] = .string(store)
            }
        }
        spec.session.id = sessionID(for: item)
        if let room = item.room { spec.session.room = room }
        spec.session.autoStartTranscription = true
        spec.session.workItem = workItem
        return spec
    }

    /// Refuses a batch whose files' runs would write one file, or overwrite a file another run reads. Every run
    /// writes the pipeline's outputs, so an output path the config fixes (a `wav-sink`'s `path`) would be
    /// written by each file in turn, or by several at once: an exclusive output (`PathRole.output`) must resolve
    /// to a different file for each, and no output may be one of the files read. A shared output (the
    /// transcript store) is what every run writes to. Call after `validate`; nothing is opened. An
    /// `invalidConfig` error (exit 65) naming the parameter and both files.
    public func checkPaths(of items: [WorkItem], registry: NodeRegistry) throws(GraphError) {
        var uses = PathUse.configInputs(of: spec)
        for item in items {
            for node in try InputTemplates.expand(spec(for: item), registry: registry).nodes {
                guard let entry = registry.entry(for: node.type) else { continue }  // `validate` reports it
                let path = JSONPath.root / "nodes" / node.id
                let values = (try? ParameterValidation.validate(node.parameters, against: entry.descriptor, at: path)) ?? [:]
                uses += PathUse.uses(of: values, entry.descriptor, baseDirectory: spec.baseDirectory, at: path).map { use in
                    var use = use
                    use.location = "\(configPath): \(use.location) (running \(item.path))"
                    return use
                }
            }
        }
        guard let conflict = PathUse.firstConflict(uses) else { return }
        var error = conflict.error
        if conflict.bothWrite {
            error.message += "; a batch runs its pipeline once per file, so a file-writing node with a fixed path is "
                + "written by every file: remove it from the batch pipeline"
        }
        throw error
    }

    /// Checks every node's type and parameters against `registry` without opening any file, so a bad pipeline
    /// is one error (exit 65, naming the config) before any file runs.
    public func validate(registry: NodeRegistry, samplePath: String = "input.wav") throws(GraphError) {
        for node in spec(for: WorkItem(key: samplePath, path: samplePath)).nodes {
            let path = JSONPath.root / "nodes" / node.id
            guard let entry = registry.entry(for: node.type) else {
                throw GraphError(.invalidConfig, at: "\(configPath): \(path / "type")", "unknown node type \"\(node.type)\""
                    + Suggestions.hint(for: node.type, in: registry.typeNames) + " (see `audiograph nodes`)")
            }
            do {
                _ = try ParameterValidation.validate(node.parameters, against: entry.descriptor, at: path)
            } catch {
                throw GraphError(error.code, at: "\(configPath): \(error.location)", error.message, node: error.nodeID)
            }
        }
    }
}
