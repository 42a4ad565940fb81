import AudioGraphCore
import AudioGraphIO
import AudioGraphSpeech
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// Issue 15, "engines own their parameters": a test engine's own parameters are accepted on the recognizer node
/// and reach `RecognizerOptions.parameters` with their defaults and paths made absolute; another engine's
/// parameter is refused naming `nodes.asr.hmm`; an unknown one gets a did-you-mean; the engine's input paths go
/// through the builder's path checks like any node path.
@Suite(.serialized, .ownThreads) struct EngineParameterTests {
    /// The options the probe engine was last made from.
    static let lastOptions = Mutex<RecognizerOptions?>(nil)

    static let engine = RecognizerEngine(
        name: "param-probe", summary: "Records the options it is made from.",
        parameters: [
            ParameterSpec("beam", .integer(range: 1...8), default: 3, doc: "A beam."),
            ParameterSpec("vocabulary", .path(.input), doc: "A word list."),
        ],
        capabilities: { _ in RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: true,
                                                    languages: ["en-US"], sampleRate: 16000) },
        make: { options in
            lastOptions.withLock { $0 = options }
            return ScriptedRecognizer()
        })

    static func registry() -> NodeRegistry {
        _ = try? RecognizerEngines.register(engine)  // the first call registers it; later ones find it there
        var registry = NodeRegistry()
        try! registry.register(FileSourceNode.self)
        try! registry.register(RecognizerNode.self)
        return registry
    }

    /// Builds `recognizer` parameters in a file → recognizer → null graph whose config sits in `folder`.
    static func build(_ parameters: JSONObject, in folder: String) throws(GraphError) -> Graph {
        let spec = GraphSpec(nodes: [
            NodeSpec(id: "src", type: "file-source", parameters: ["path": .string(SpeechFixtures.url("goforward").path)]),
            NodeSpec(id: "asr", type: "recognizer", parameters: parameters),
        ], links: [LinkSpec(from: Endpoint(node: "src"), to: Endpoint(node: "asr"))], baseDirectory: folder)
        return try GraphBuilder(registry: registry()).build(spec)
    }

    static func error(_ parameters: JSONObject, in folder: String = NSTemporaryDirectory()) -> GraphError? {
        do {
            _ = try build(parameters, in: folder)
            return nil
        } catch {
            return error
        }
    }

    @Test("the engine's own parameters are accepted, defaults filled in, paths absolute")
    func ownParametersReachTheEngine() throws {
        let folder = try TemporaryFolder()
        try "yes\nno\n".write(toFile: folder.path("words.txt"), atomically: true, encoding: .utf8)
        let graph = try Self.build(["engine": "param-probe", "vocabulary": "words.txt"], in: folder.path)
        let node = try #require(graph.nodes.first { $0.id == "asr" }?.instance as? RecognizerNode)
        let harness = try NodeHarness(node, id: "asr", input: SpeechFixtures.format)
        harness.stop()
        let options = try #require(Self.lastOptions.withLock { $0 })
        #expect(options.parameters == ["beam": 3, "vocabulary": .string(folder.path("words.txt"))])
        let set = try Self.build(["engine": "param-probe", "beam": 5, "vocabulary": .string(folder.path("words.txt"))],
                                 in: "/")
        #expect(set.nodes.first { $0.id == "asr" }?.configuration.values["beam"] == 5)
    }

    @Test("another engine's parameter is refused at nodes.asr.hmm, saying whose it is")
    func anotherEnginesParameter() throws {
        let error = try #require(Self.error(["engine": "param-probe", "hmm": "x"]))
        #expect(error.code == .invalidConfig && error.location == "nodes.asr.hmm")
        #expect(error.message.contains("hmm is a pocketsphinx parameter; this recognizer's engine is param-probe"), "\(error)")
        // And the other way round.
        let back = try #require(Self.error(["engine": "pocketsphinx", "beam": 2]))
        #expect(back.location == "nodes.asr.beam" && back.message.contains("beam is a param-probe parameter"), "\(back)")
    }

    @Test("an unknown parameter gets a did-you-mean among the node's and the engine's parameters")
    func unknownParameter() throws {
        let error = try #require(Self.error(["engine": "param-probe", "bean": 2]))
        #expect(error.location == "nodes.asr.bean" && error.message.contains("did you mean \"beam\""), "\(error)")
        let common = try #require(Self.error(["engine": "param-probe", "partial": "on"]))
        #expect(common.message.contains("did you mean \"partials\""), "\(common)")
    }

    @Test("the engine's parameters are type checked at their JSON path")
    func outOfRange() throws {
        let error = try #require(Self.error(["engine": "param-probe", "beam": 9]))
        #expect(error.location == "nodes.asr.beam" && error.message.contains("out of range"), "\(error)")
    }

    @Test("an engine's input path goes through the builder's path checks (missing: exit 66 at its JSON path)")
    func pathRolesAreChecked() throws {
        let folder = try TemporaryFolder()
        let error = try #require(Self.error(["engine": "param-probe", "vocabulary": "missing.txt"], in: folder.path))
        #expect(error.code == .missingInput && error.location == "nodes.asr.vocabulary", "\(error)")
        let pocketsphinx = try #require(Self.error(["engine": "pocketsphinx", "dict": "none.dict"], in: folder.path))
        #expect(pocketsphinx.code == .missingInput && pocketsphinx.location == "nodes.asr.dict", "\(pocketsphinx)")
    }

    /// An engine whose model parameter defaults to a file that is not installed; its validate says how to get it.
    static let defaultModelEngine = RecognizerEngine(
        name: "default-model-probe", summary: "Has a default model path.",
        parameters: [ParameterSpec("model", .path(.input), default: "/nonexistent/audiograph-test/model.bin", doc: "Model.")],
        capabilities: { _ in RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: false,
                                                    languages: ["en-US"], sampleRate: 16000) },
        validate: { options in
            let path = options.parameters["model"]?.stringValue ?? ""
            guard FileManager.default.fileExists(atPath: path) else {
                throw options.node.error("no model at \(path); install it", parameter: "model", code: .unavailable)
            }
        },
        make: { _ in ScriptedRecognizer() })

    @Test("a default input path is left to the engine (exit 69 with its install hint); a named one is the builder's (66)")
    func defaultPathsAreTheEnginesToCheck() throws {
        _ = try? RecognizerEngines.register(Self.defaultModelEngine)  // the first call registers it; later ones find it there
        let missingDefault = try #require(Self.error(["engine": "default-model-probe"]))
        #expect(missingDefault.code == .unavailable && missingDefault.location == "nodes.asr.model", "\(missingDefault)")
        #expect(missingDefault.message.contains("install it"), "\(missingDefault)")
        let named = try #require(Self.error(["engine": "default-model-probe", "model": "/nonexistent/audiograph-test/x.bin"]))
        #expect(named.code == .missingInput && named.location == "nodes.asr.model", "\(named)")
    }

    @Test("an unknown engine is refused at nodes.asr.engine with a did-you-mean")
    func unknownEngine() throws {
        let error = try #require(Self.error(["engine": "pocketsfinx"]))
        #expect(error.location == "nodes.asr.engine" && error.message.contains("did you mean \"pocketsphinx\""), "\(error)")
    }

    @Test("pocketsphinx's parameters are the engine's, not the node's")
    func pocketsphinxOwnsItsParameters() {
        let common = RecognizerNode.descriptor.parameters.map(\.name)
        #expect(common == ["engine", "language", "partials", "partialIntervalMs", "silenceMs", "maxUtteranceSeconds"])
        #expect(PocketSphinxEngine.engine.parameters.map(\.name)
            == ["hmm", "lm", "dict", "keyphrase", "kwsThreshold", "grammar", "modelLanguage", "finalPass", "maxActiveHMMs"])
    }
}

/// A recognizer that says nothing (the parameter tests never feed it).
final class ScriptedRecognizer: SpeechRecognizer {
    let capabilities = RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: true,
                                              languages: ["en-US"], sampleRate: 16000)
    func startUtterance() throws {}
    func process(_ samples: UnsafeBufferPointer<Float>) throws {}
    func partialHypothesis() -> String { "" }
    func endUtterance() throws -> RecognitionResult { RecognitionResult(text: "") }
}
