import AudioGraphCore
import AudioGraphSpeech
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// Issue 16: an engine's `RecognizerCapabilities.context` reaches the recognizer node: the engine is given audio
/// from `leadIn` before the VAD's start of speech and, for the final pass, `tail` after its end; the final keeps
/// the speech's start and counts word times from the audio's.
@Suite(.serialized, .ownThreads) struct UtteranceContextTests {
    @Test func theEngineGetsItsLeadInAndTail() throws {
        ContextRecognizer.reset()
        let harness = try RecognizerNodeHarness.make(engine: ContextRecognizer.engine, realtime: true)
        try harness.push([Float](repeating: 0, count: 32000), startingAt: 0)
        try harness.push(Event(node: "vad", time: 2, payload: .speechStarted))
        try harness.push([Float](repeating: 0, count: 24000), startingAt: 32000)
        try harness.push(Event(node: "vad", time: 3, payload: .speechEnded))
        try harness.finish()
        let log = ContextRecognizer.log.withLock { $0 }
        // Audio from 1.5 s (2 s less the 0.5 s lead-in) to 3.5 s was fed; the final pass gets up to 3 s + 0.3 s.
        #expect(log.processed == 32000)
        #expect(log.finalFrames == [28800])
        let finals = harness.events.compactMap { event -> TranscriptUpdate? in
            if case .transcript(let t) = event.payload, t.isFinal { return t } else { return nil }
        }
        #expect(finals.map(\.start) == [2])
        #expect(finals.first?.words.first?.start == 1.5 + 0.75)
    }
}

/// An engine that asks for 0.5 s of lead-in and 0.3 s of tail and logs what it is given.
final class ContextRecognizer: SpeechRecognizer {
    struct Log: Sendable {
        var processed = 0
        var finalFrames: [Int] = []
    }
    static let log = Mutex(Log())
    static func reset() { log.withLock { $0 = Log() } }
    static let declared = RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: true,
                                                 languages: ["en-US"], sampleRate: 16000,
                                                 context: UtteranceContext(leadIn: 0.5, tail: 0.3))
    static let engine = RecognizerEngine(name: "test-context", summary: "Asks for audio around utterances.",
                                         capabilities: { _ in declared }, make: { _ in ContextRecognizer() })

    let capabilities = ContextRecognizer.declared
    func startUtterance() throws {}
    func process(_ samples: UnsafeBufferPointer<Float>) throws { Self.log.withLock { $0.processed += samples.count } }
    func partialHypothesis() -> String { "" }
    func endUtterance() throws -> RecognitionResult { result }
    func endUtterance(speechEndsAfter frames: Int) throws -> RecognitionResult {
        Self.log.withLock { $0.finalFrames.append(frames) }
        return result
    }
    private var result: RecognitionResult {
        RecognitionResult(text: "word", words: [RecognizedWord(word: "word", start: 0.75, end: 1)])
    }
}
