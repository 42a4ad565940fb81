import AudioGraphCore
import Foundation

/// Transcribes a recorded file: `file-source -> vad -> recognizer` (a resampler is inserted as the recognizer
/// needs), collecting the final results. Used by the voice-capture session; usable on its own.
public struct FileTranscriber: Sendable {
    /// The node types to build with (must hold file-source, vad, recognizer and resampler).
    public var registry: NodeRegistry
    /// Parameters of the recognizer node (`engine`, `language`, model paths, …).
    public var recognizer: JSONObject
    /// Parameters of the VAD node; nil to let the recognizer find utterances itself.
    public var vad: JSONObject?
    public var session: SessionSettings

    public init(registry: NodeRegistry, recognizer: JSONObject = JSONObject(), vad: JSONObject? = JSONObject(),
                session: SessionSettings = SessionSettings()) {
        self.registry = registry
        // A recorded file is not read in real time, so the recognizer's `partials: auto` gives finals only.
        self.recognizer = recognizer
        self.vad = vad
        self.session = session
    }

    /// Checks the recognizer (engine, language, model files) without any audio.
    public func validateRecognizer() throws(GraphError) {
        guard let entry = registry.entry(for: "recognizer") else {
            throw GraphError(.unavailable, at: "recognizer", "no recognizer node type is registered")
        }
        let path = JSONPath.root / "nodes" / "asr"
        let values = try ParameterValidation.validate(recognizer, against: entry.descriptor, at: path)
        do {
            _ = try entry.make(NodeConfiguration(id: "asr", type: "recognizer", values: values, session: session))
        } catch {
            throw GraphBuilder.wrap(error, node: NodeConfiguration(id: "asr", type: "recognizer", values: values), code: .unavailable)
        }
    }

    /// A runtime that transcribes `path` when run; its `asr` node's final transcript events are the result.
    public func makeRuntime(for path: String) throws(GraphError) -> GraphRuntime {
        var nodes = [NodeSpec(id: "src", type: "file-source", parameters: JSONObject([("path", .string(path))]))]
        var chain = "src"
        if let vad {
            nodes.append(NodeSpec(id: "vad", type: "vad", parameters: vad))
            chain += " -> vad"
        }
        nodes.append(NodeSpec(id: "asr", type: "recognizer", parameters: recognizer))
        chain += " -> asr"
        let spec = GraphSpec(session: session, nodes: nodes, links: try LinkSpec.chain(chain), baseDirectory: "/")
        return GraphRuntime(graph: try GraphBuilder(registry: registry).build(spec))
    }

    /// Transcribes `path` and returns the final results in order.
    public func transcribe(_ path: String) async throws -> [TranscriptUpdate] {
        try await Self.finals(of: makeRuntime(for: path))
    }

    /// Runs a transcription runtime to the end and collects its finals.
    public static func finals(of runtime: GraphRuntime) async throws -> [TranscriptUpdate] {
        let (events, result) = runtime.start()
        var finals: [TranscriptUpdate] = []
        for await event in events {
            if case .transcript(let update) = event.payload, update.isFinal { finals.append(update) }
        }
        let summary = try await result.value
        if summary.interrupted { throw CancellationError() }
        return finals
    }
}
