/// Issue 15, engine `whisper`, item "File runs": the packer lays utterances into shared 30 s windows and gives
/// each decoded word back to its utterance, with times relative to the utterance's start.
import Testing
@testable import AudioGraphWhisper

@Suite struct WhisperPackerTests {
    let packer = WhisperPacker(windowFrames: 30 * 16000, gapFrames: 16000)

    @Test func utterancesFitUntilTheWindowIsFull() {
        #expect(packer.frames([16000 * 10, 16000 * 10]) == 16000 * 21)
        #expect(packer.fits(16000 * 8, after: [16000 * 10, 16000 * 10]))
        #expect(!packer.fits(16000 * 9, after: [16000 * 10, 16000 * 10]))
        #expect(packer.fits(16000 * 30, after: []))
    }

    @Test func spansAndAudioLeaveGapsOfSilence() {
        #expect(packer.spans([100, 200]) == [0..<100, 16100..<16300])
        let audio = packer.assemble([[Float](repeating: 1, count: 100), [Float](repeating: 2, count: 200)])
        #expect(audio.count == 16300)
        #expect(audio[99] == 1 && audio[100] == 0 && audio[16099] == 0 && audio[16100] == 2)
    }

    @Test func wordsGoBackToTheirUtterances() {
        // Utterances of 2 s and 3 s: the second starts at 3 s in the window.
        let lengths = [32000, 48000]
        let words = [
            WhisperWord(text: "one", start: 0.1, end: 0.6),
            WhisperWord(text: "two", start: 1.5, end: 2.3),   // runs into the gap; its middle is in the first
            WhisperWord(text: "three", start: 2.8, end: 3.4), // middle in the gap, nearer the second
            WhisperWord(text: "four", start: 5.5, end: 6.2),  // past the end: clamped to the utterance
        ]
        let assigned = packer.assign(words, toUtterancesOf: lengths)
        #expect(assigned.map { $0.map(\.text) } == [["one", "two"], ["three", "four"]])
        #expect(assigned[0][1].end == 2.0)
        #expect(assigned[1][0].start == 0 && abs(assigned[1][0].end - 0.4) < 1e-9)
        #expect(abs(assigned[1][1].start - 2.5) < 1e-9 && assigned[1][1].end == 3.0)
    }

    /// A sentence's last word timed into the gap closes the sentence the utterance before it left open (the
    /// 60 s call: "…we can finish early" / "today. Before we hang up…"); one that opens a sentence, or follows
    /// an utterance that ended its sentence, goes to the nearest as before.
    @Test func aWordThatEndsTheOpenSentenceStaysWithIt() {
        let lengths = [32000, 48000]  // the second starts at 3 s
        let drifted = [
            WhisperWord(text: "finish", start: 1.2, end: 1.6),
            WhisperWord(text: "early", start: 1.6, end: 2.0),
            WhisperWord(text: "today.", start: 2.7, end: 2.9),   // middle in the gap, nearer the second
            WhisperWord(text: "Before", start: 3.1, end: 3.5),
        ]
        #expect(packer.assign(drifted, toUtterancesOf: lengths).map { $0.map(\.text) } == [["finish", "early", "today."], ["Before"]])

        let closed = [
            WhisperWord(text: "early.", start: 1.6, end: 2.0),
            WhisperWord(text: "Hello.", start: 2.7, end: 2.9),
        ]
        #expect(packer.assign(closed, toUtterancesOf: lengths).map { $0.map(\.text) } == [["early."], ["Hello."]])

        let opening = [
            WhisperWord(text: "early", start: 1.6, end: 2.0),
            WhisperWord(text: "Before", start: 2.7, end: 2.9),
            WhisperWord(text: "we", start: 3.1, end: 3.3),
        ]
        #expect(packer.assign(opening, toUtterancesOf: lengths).map { $0.map(\.text) } == [["early"], ["Before", "we"]])
        #expect(WhisperPacker.endsSentence("policy?") && WhisperPacker.endsSentence("再見。") && WhisperPacker.endsSentence("end.\""))
        #expect(!WhisperPacker.endsSentence("Great,") && !WhisperPacker.endsSentence(""))
    }

    @Test func anUtteranceWithNoWordsGetsNone() {
        let assigned = packer.assign([WhisperWord(text: "hi", start: 0.2, end: 0.5)], toUtterancesOf: [16000, 16000, 16000])
        #expect(assigned.map(\.count) == [1, 0, 0])
    }
}
