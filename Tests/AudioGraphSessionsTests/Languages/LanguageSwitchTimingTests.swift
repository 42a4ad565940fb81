/// Issue 16, languages, item "setCaptionLanguage switches language from the next utterance on": an utterance under
/// way when the switch comes keeps its language (decode and tag), the next one is decoded by a `LanguageSwitching`
/// engine in the new language and tagged with it.
import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// A test engine whose every result is the language it decodes in ("en-US"), switched through `LanguageSwitching`.
final class LanguageEchoRecognizer: SpeechRecognizer, LanguageSwitching {
    let capabilities = RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: false,
                                              languages: ["en-US", "fr-FR"], sampleRate: 16000)
    private var language: String
    private var fed = 0
    init(language: String) { self.language = language }
    func startUtterance() throws { fed = 0 }
    func process(_ samples: UnsafeBufferPointer<Float>) throws { fed += samples.count }
    func partialHypothesis() -> String { "" }
    func endUtterance() throws -> RecognitionResult { RecognitionResult(text: fed > 0 ? language : "") }
    func switchLanguage(to code: String) throws { language = code }

    static let engine = RecognizerEngine(
        name: "test-language-echo", summary: "Says the language it decodes in.",
        capabilities: { _ in LanguageEchoRecognizer(language: "en-US").capabilities },
        make: { options in LanguageEchoRecognizer(language: options.language) })
}

@Suite(.serialized, .ownThreads) struct LanguageSwitchTimingTests {
    @Test func theUtteranceUnderWayKeepsItsLanguageAndTheNextSwitches() async throws {
        _ = try? RecognizerEngines.register(LanguageEchoRecognizer.engine)  // the first call registers it
        let (session, graph) = try TranscriptionSessionTests().makeSession(engine: "test-language-echo", blocks: 20)
        let source = graph.node("src")!.instance as! StepSourceNode
        let captions = graph.node("cc")!.instance as! CaptionProbeNode
        let (events, result) = session.start()
        let drain = Task { for await _ in events {} }
        try await session.startTranscription()

        // Utterance 1 is under way (a tone: no silence ends it) when the switch comes.
        source.release(5)
        try await eventually("five blocks out") { source.blocksEmitted == 5 }
        try await session.setCaptionLanguage("fr-FR")
        source.release(5)
        try await eventually("ten blocks out") { source.blocksEmitted == 10 }
        try await session.stopTranscription()
        // Utterance 2 starts after the switch.
        try await session.startTranscription()
        source.release(10)
        _ = try await result.value
        await drain.value

        let finals = captions.updates.filter(\.isFinal)
        #expect(finals.map(\.text) == ["en-US", "fr-FR"], "\(finals)")
        #expect(finals.map(\.language) == ["en-US", "fr-FR"], "\(finals)")
    }
}
