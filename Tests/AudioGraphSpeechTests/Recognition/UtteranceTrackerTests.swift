import AudioGraphCore
import AudioGraphSpeech
import AudioGraphTestKit
import Testing

/// Issue 15, "the node's utterance bookkeeping becomes a pure type tested on its own": `UtteranceTracker`
/// without any engine: segment ids and revisions, replay overlap, partial timing, pause hints waiting for their
/// audio, the cut at the maximum length, and deferred results paired with their utterances in order.
@Suite(.ownThreads) struct UtteranceTrackerTests {
    static func tracker(partialInterval: Int = 1600, wantsPartials: Bool = true, maxFrames: Int64 = 16000 * 30) -> UtteranceTracker {
        UtteranceTracker(sampleRate: 16000, partialInterval: partialInterval, wantsPartials: wantsPartials,
                         maxUtteranceFrames: maxFrames)
    }

    @Test("an utterance starts no earlier than the ring's audio or the last start of transcription")
    func startIsClamped() {
        var t = Self.tracker()
        #expect(t.begin(at: 100, earliest: 500) == 500)
        _ = t.end(at: 900, speechEnded: false)
        t.activeFrom = 2000
        #expect(t.begin(at: 1000, earliest: 0) == 2000)
        #expect(t.current?.segment == 2)
    }

    @Test("the engine's lead-in starts the audio earlier, never inside the previous utterance's, and its tail ends the final later; captions keep the speech's start")
    func engineContext() throws {
        var t = UtteranceTracker(sampleRate: 16000, partialInterval: 1600, wantsPartials: false, maxUtteranceFrames: 16000 * 30,
                                 context: UtteranceContext(leadIn: 0.2, tail: 0.5))
        #expect(t.begin(at: 16000, earliest: 0) == 16000 - 3200)
        _ = t.fed(32000, upTo: 44800)
        // Speech ended at 40000: the final pass gets up to 40000 + 0.5 s, counted from the audio's start.
        #expect(t.end(at: 40000, speechEnded: true) == 40000 + 8000 - 12800)
        #expect(t.previousAudioEnd == 48000)
        // The next speech starts 0.1 s after that audio ends: its lead-in stops there.
        #expect(t.begin(at: 49600, earliest: 0) == 48000)
        #expect(t.current?.speechStart == 49600)
        _ = t.fed(16000, upTo: 64000)
        _ = t.end(at: 60000, speechEnded: true)
        let finals = try t.resolve([RecognitionResult(text: "one", words: [RecognizedWord(word: "one", start: 0.5, end: 1)]),
                                    RecognitionResult(text: "two", words: [RecognizedWord(word: "two", start: 0.05, end: 0.5)])],
                                   language: "en-US")
        // Word times count from the audio's start; the final starts at the speech's start, or at an earlier word.
        #expect(finals.map(\.start) == [1.0, 3.0 + 0.05])
        #expect(finals[0].words.first?.start == 0.8 + 0.5)
        // Without a context: no lead-in, 0.2 s of tail.
        var plain = Self.tracker()
        #expect(plain.begin(at: 16000, earliest: 0) == 16000)
        _ = plain.fed(16000, upTo: 32000)
        #expect(plain.end(at: 30000, speechEnded: true) == 14000 + 3200)
    }

    @Test("a replay overlapping the live buffer is fed once")
    func alreadyFedSkipsTheOverlap() {
        var t = Self.tracker()
        t.begin(at: 0, earliest: 0)
        _ = t.fed(1000, upTo: 1000, replay: true)
        #expect(t.alreadyFed(1600, at: 400) == 600)
        #expect(t.alreadyFed(100, at: 0) == 100)
        #expect(t.alreadyFed(100, at: 1000) == 0)
    }

    @Test("partials are due every interval and only new text makes a revision")
    func partials() {
        var t = Self.tracker(partialInterval: 1600)
        t.begin(at: 16000, earliest: 0)
        #expect(!t.fed(1000, upTo: 17000).takePartial)
        #expect(t.fed(600, upTo: 17600).takePartial)
        let first = t.partial("hello", language: "en-US")
        #expect(first == TranscriptUpdate(segment: 1, revision: 1, isFinal: false, start: 1, end: 1.1, text: "hello",
                                          language: "en-US"))
        #expect(t.partial("hello", language: "en-US") == nil)
        #expect(t.partial("", language: "en-US") == nil)
        #expect(t.partial("hello there", language: "en-US")?.revision == 2)
        var off = Self.tracker(wantsPartials: false)
        off.begin(at: 0, earliest: 0)
        #expect(!off.fed(16000, upTo: 16000).takePartial)
    }

    @Test("a pause hint is passed on once its audio is fed, with the frames a speechEnded there keeps")
    func pauseWaitsForItsAudio() {
        var t = Self.tracker()
        t.begin(at: 0, earliest: 0)
        _ = t.fed(8000, upTo: 8000)
        // A pause at 1 s keeps 1 s + the 0.2 s tail = 19200 frames; only 8000 are fed.
        #expect(t.pause(at: 16000) == nil)
        #expect(t.fed(8000, upTo: 16000).prepareFinal == nil)
        #expect(t.fed(3200, upTo: 19200).prepareFinal == 19200)
        #expect(t.fed(1600, upTo: 20800).prepareFinal == nil)
        #expect(t.pause(at: 1600) == 1600 + 3200)
        #expect(t.end(at: 16000, speechEnded: true) == 19200)
    }

    @Test("an utterance at the maximum length is cut, never during a replay")
    func cut() {
        var t = Self.tracker(maxFrames: 16000)
        t.begin(at: 0, earliest: 0)
        #expect(!t.fed(16000, upTo: 16000, replay: true).cut)
        #expect(t.fed(100, upTo: 16100).cut)
    }

    @Test("finals in real time: words move onto the stream clock, the end never precedes the last word, an empty one gives its id back")
    func immediateFinals() throws {
        var t = Self.tracker()
        t.begin(at: 16000, earliest: 0)
        _ = t.fed(32000, upTo: 48000)
        #expect(t.end(at: 40000, speechEnded: false) == nil)
        let result = RecognitionResult(text: "hi there", confidence: 0.9,
                                       words: [RecognizedWord(word: "hi", start: 0.1, end: 0.4),
                                               RecognizedWord(word: "there", start: 0.5, end: 1.9)])
        let final = try #require(try t.resolve([result], language: "en-US").first)
        #expect(final.segment == 1 && final.revision == 1 && final.isFinal && final.start == 1)
        #expect(final.words.map(\.start) == [1.1, 1.5] && final.end == 2.9)  // 2.5 s where speech ended, 2.9 the word
        // Nothing said: dropped, and the next utterance takes segment 2 again.
        t.begin(at: 48000, earliest: 0)
        _ = t.end(at: 50000, speechEnded: false)
        #expect(try t.resolve([RecognitionResult(text: "")], language: "en-US").isEmpty)
        t.begin(at: 50000, earliest: 0)
        #expect(t.current?.segment == 2)
    }

    @Test("an empty final after partials is emitted, to clear the partial")
    func emptyFinalAfterPartials() throws {
        var t = Self.tracker(partialInterval: 100)
        t.begin(at: 0, earliest: 0)
        _ = t.fed(100, upTo: 100)
        _ = t.partial("uh", language: "en-US")
        _ = t.end(at: 100, speechEnded: false)
        let finals = try t.resolve([RecognitionResult(text: "")], language: "en-US")
        #expect(finals.map(\.revision) == [2] && finals.map(\.text) == [""])
    }

    @Test("deferred results pair with their utterances in order; empty ones are dropped and leave a gap")
    func deferredResults() throws {
        var t = Self.tracker()
        for index in 0..<4 {
            t.begin(at: Int64(index) * 32000, earliest: 0)
            _ = t.fed(16000, upTo: Int64(index) * 32000 + 16000)
            _ = t.end(at: Int64(index) * 32000 + 16000, speechEnded: false)
        }
        #expect(t.pending.map(\.segment) == [1, 2, 3, 4])
        let early = try t.resolve([RecognitionResult(text: "one"), RecognitionResult(text: "")], language: "en-US")
        #expect(early.map(\.segment) == [1] && early.map(\.start) == [0])
        t.begin(at: 200_000, earliest: 0)
        #expect(t.current?.segment == 5, "an id is never reused once a later utterance took one")
        let late = try t.resolve([RecognitionResult(text: "three"), RecognitionResult(text: "four")], language: "de-DE")
        #expect(late.map(\.segment) == [3, 4] && late.map(\.start) == [4, 6] && late.map(\.text) == ["three", "four"])
        #expect(late.allSatisfy { $0.language == "de-DE" && $0.isFinal && $0.revision == 1 })
        #expect(t.pending.isEmpty)
        #expect(throws: UtteranceTracker.UnexpectedResult.self) {
            try t.resolve([RecognitionResult(text: "ghost")], language: "en-US")
        }
    }
}
