import AudioGraphCore
import AudioGraphSpeech
import AudioGraphTestKit
import Testing

/// Issue 15, "engines sit in a registry that refuses duplicates, like NodeRegistry", and `engine: "auto"`:
/// `RecognizerEngines.register` refuses a name already registered (the built-in's too) and the name `auto`;
/// auto picks the first of `autoPreference` that is registered and available, and says why.
@Suite(.ownThreads) struct EngineRegistryTests {
    static func engine(_ name: String) -> RecognizerEngine {
        RecognizerEngine(name: name, summary: "a second one",
                         capabilities: { _ in RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: false,
                                                                     languages: ["en-US"], sampleRate: 16000) },
                         make: { _ in throw GraphError(.unavailable, at: "x", "never made") })
    }

    @Test("a name already registered is refused, and the first registration stays")
    func duplicateIsRefused() throws {
        #expect(throws: GraphError(.invalidConfig, at: "recognizer engine \"pocketsphinx\"",
                                   "recognizer engine \"pocketsphinx\" is already registered")) {
            try RecognizerEngines.register(Self.engine("pocketsphinx"))
        }
        #expect(RecognizerEngines.engine(named: "pocketsphinx")?.summary == PocketSphinxEngine.engine.summary)
        try RecognizerEngines.register(Self.engine("registry-test-once"))
        #expect(throws: GraphError.self) { try RecognizerEngines.register(Self.engine("registry-test-once")) }
        #expect(throws: GraphError.self) { try RecognizerEngines.register(Self.engine(RecognizerEngines.auto)) }
        #expect(throws: GraphError.self) { try RecognizerEngines.register(Self.engine("two words")) }
    }

    @Test("auto picks the first preferred engine that is there, saying why the others were passed over")
    func autoChoice() throws {
        #expect(RecognizerEngines.autoPreference == ["whisper", "pocketsphinx"])
        let choice = try #require(RecognizerEngines.choose(RecognizerEngines.auto))
        if RecognizerEngines.engine(named: "whisper") == nil {
            #expect(choice.engine.name == "pocketsphinx")
            #expect(choice.reason == "auto: no whisper engine in this build")
        }
        #expect(RecognizerEngines.choose("pocketsphinx")?.reason == nil, "a named engine needs no reason")
        #expect(RecognizerEngines.choose("nope") == nil)
    }
}
