import AudioGraphCore
import AudioGraphSpeech
import AudioGraphTestKit

/// A recognizer node with a test engine (registered on first use), in a harness fed audio and VAD events.
enum RecognizerNodeHarness {
    static func make(engine: RecognizerEngine, realtime: Bool) throws -> NodeHarness<RecognizerNode> {
        _ = try? RecognizerEngines.register(engine)  // first call registers; later ones find it
        let values = try ParameterValidation.validate(["engine": .string(engine.name)],
                                                      against: RecognizerNode.descriptor, at: .root / "nodes" / "asr")
        let node = try RecognizerNode(configuration: NodeConfiguration(id: "asr", type: "recognizer", values: values))
        return try NodeHarness(node, id: "asr", input: SpeechFixtures.format, inputKinds: [.audio, .speech],
                               options: RunOptions(realtime: realtime))
    }
}
