import AudioGraphCore
import AudioGraphSpeech
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// Issue 15, "deferred finals": when the graph is not real time the recognizer node ends utterances with
/// `endUtteranceDeferring`, pairs the results the engine hands back later with their utterances in order
/// (times, segment ids), drops empty ones, and flushes what is held at finish, flush, stopTranscription and
/// setLanguage; in real time it keeps calling `endUtterance(speechEndsAfter:)`.
@Suite(.serialized, .ownThreads) struct DeferredFinalTests {
    /// Feeds utterances at 0, 2, 4, … s of 1 s each (silence), as a VAD would delimit them.
    static func run(realtime: Bool, texts: [String], commands: [Int: ControlCommand] = [:]) throws -> DeferringRecognizer.Log {
        DeferringRecognizer.reset(texts: texts)
        let harness = try RecognizerNodeHarness.make(engine: DeferringRecognizer.engine, realtime: realtime)
        for index in texts.indices {
            let start = Double(index) * 2
            try harness.push(Event(node: "vad", time: start, payload: .speechStarted))
            try harness.push([Float](repeating: 0, count: 16000), startingAt: Int64(start * 16000))
            try harness.push(Event(node: "vad", time: start + 1, payload: .speechEnded))
            if let command = commands[index] { try harness.push(command) }
        }
        try harness.finish()
        var log = DeferringRecognizer.log.withLock { $0 }
        log.finals = harness.events.compactMap {
            if case .transcript(let t) = $0.payload, t.isFinal { return t } else { return nil }
        }
        return log
    }

    @Test("batch: results handed back in pairs and at the end pair with their utterances in order; empty ones are dropped")
    func pairedInOrder() throws {
        let log = try Self.run(realtime: false, texts: ["one", "", "three", "four", "five"])
        #expect(log.deferringCalls == 5 && log.plainCalls == 0)
        #expect(log.flushes >= 1, "held finals are flushed at finish")
        #expect(log.finals.map(\.text) == ["one", "three", "four", "five"])
        // The silent second utterance's id is taken again by the third: none had begun since it ended.
        #expect(log.finals.map(\.segment) == [1, 2, 3, 4])
        #expect(log.finals.map(\.start) == [0, 4, 6, 8], "each final keeps its own utterance's start")
        #expect(log.finals.map { $0.words.first?.start } == [0.25, 4.25, 6.25, 8.25], "words on their utterance's clock")
        #expect(log.finals.map(\.end) == [1, 5, 7, 9])
    }

    @Test("flush and setLanguage hand over what is held; a final keeps the language it was spoken in")
    func flushPoints() throws {
        let log = try Self.run(realtime: false, texts: ["one", "two", "three"],
                               commands: [0: .flush, 1: .setLanguage("en-US")])
        #expect(log.finals.map(\.text) == ["one", "two", "three"])
        #expect(log.flushes >= 3)
        #expect(log.flushedHeld == [1, 1, 1], "each flush found the one final held since the last")
    }

    @Test("in real time the node takes each final at once with endUtterance(speechEndsAfter:)")
    func realtimeIsUnchanged() throws {
        let log = try Self.run(realtime: true, texts: ["one", "two"])
        #expect(log.deferringCalls == 0 && log.plainCalls == 2)
        #expect(log.finals.map(\.text) == ["one", "two"] && log.finals.map(\.segment) == [1, 2])
    }
}

/// An engine that holds finals back and returns them two at a time (and the rest when flushed), with one word at
/// 0.25 s into its utterance.
final class DeferringRecognizer: SpeechRecognizer {
    struct Log: Sendable {
        var texts: [String] = []
        var ended = 0
        var deferringCalls = 0
        var plainCalls = 0
        var flushes = 0
        /// How many held results each non-empty flush returned.
        var flushedHeld: [Int] = []
        var finals: [TranscriptUpdate] = []
    }
    static let log = Mutex(Log())
    static func reset(texts: [String]) { log.withLock { $0 = Log(texts: texts) } }

    static let engine = RecognizerEngine(
        name: "test-deferring", summary: "Holds finals back.",
        capabilities: { _ in RecognizerCapabilities(streaming: false, partialResults: false, wordTimings: true,
                                                    languages: ["en-US"], sampleRate: 16000) },
        make: { _ in DeferringRecognizer() })

    let capabilities = RecognizerCapabilities(streaming: false, partialResults: false, wordTimings: true,
                                              languages: ["en-US"], sampleRate: 16000)
    private var held: [RecognitionResult] = []

    func startUtterance() throws {}
    func process(_ samples: UnsafeBufferPointer<Float>) throws {}
    func partialHypothesis() -> String { "" }

    private func nextResult() -> RecognitionResult {
        let text = Self.log.withLock { log in
            defer { log.ended += 1 }
            return log.texts[log.ended]
        }
        return RecognitionResult(text: text, words: text.isEmpty ? [] : [RecognizedWord(word: text, start: 0.25, end: 0.75)])
    }

    func endUtterance() throws -> RecognitionResult {
        Self.log.withLock { $0.plainCalls += 1 }
        return nextResult()
    }

    func endUtterance(speechEndsAfter frames: Int) throws -> RecognitionResult {
        Self.log.withLock { $0.plainCalls += 1 }
        return nextResult()
    }

    func endUtteranceDeferring(speechEndsAfter frames: Int?) throws -> [RecognitionResult] {
        Self.log.withLock { $0.deferringCalls += 1 }
        held.append(nextResult())
        guard held.count == 2 else { return [] }
        defer { held = [] }
        return held
    }

    func flushDeferredResults() throws -> [RecognitionResult] {
        defer { held = [] }
        Self.log.withLock { log in
            log.flushes += 1
            if !held.isEmpty { log.flushedHeld.append(held.count) }
        }
        return held
    }
}
