/// Issue 15, engine `whisper`, item "File runs": the packer lays utterances into shared 30 s windows and gives
/// each decoded word back to its utterance, with times relative to the utterance's start.
import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct WhisperPackerTests {
    let packer = WhisperPacker(windowFrames: 30 * 16000, gapFrames: 16000)

    @Test func utterancesFitUntilTheWindowIsFull() {
        #expect(packer.frames([16000 * 10, 16000 * 10]) == 16000 * 21)
        #expect(packer.fits(16000 * 8, after: [16000 * 10, 16000 * 10]))
        #expect(!packer.fits(16000 * 9, after: [16000 * 10, 16000 * 10]))
        #expect(packer.fits(16000 * 30, after: []))
    }

    @Test func spansAndAudioLeaveGapsOfSilenceBetweenCleanUtterances() {
        #expect(packer.spans([100, 200]) == [0..<100, 16100..<16300])
        // Digital silence at an utterance's edge: the background is 0, so the gap is silent.
        let first = [Float](repeating: 0, count: 400) + [Float](repeating: 1, count: 100)
        let second = [Float](repeating: 2, count: 200) + [Float](repeating: 0, count: 400)
        let audio = packer.assemble([first, second])
        #expect(audio.count == 16000 + 500 + 600)
        #expect(audio[499] == 1 && audio[500...16499].allSatisfy { $0 == 0 } && audio[16500] == 2)
    }

    /// Issue 16, unseen speech with noise: between noisy utterances the gap carries noise at their quietest
    /// level (zeros there read to whisper as the end of the audio, and a 10 dB clip lost its second sentence).
    @Test func gapsBetweenNoisyUtterancesCarryTheirBackgroundLevel() {
        let quiet = WhisperGapNoise.samples(count: 3200, level: 0.01, seed: 7)
        let loud = WhisperGapNoise.samples(count: 8000, level: 0.3, seed: 8)
        let audio = packer.assemble([quiet + loud + quiet, quiet + loud])
        let gap = audio[(3200 + 8000 + 3200)..<(3200 + 8000 + 3200 + 16000)]
        let rms = (gap.map { $0 * $0 }.reduce(0, +) / Float(gap.count)).squareRoot()
        #expect(abs(rms - 0.01) < 0.002, "gap RMS \(rms)")
        #expect(gap.allSatisfy { abs($0) <= 0.01 * Float(3).squareRoot() + 1e-6 })
        #expect(audio == packer.assemble([quiet + loud + quiet, quiet + loud]), "the same window every time")
    }

    @Test func theBackgroundLevelIsTheQuietestEdgeFrame() {
        let speech = [Float](repeating: 0.008, count: 16000)
        let edgeOnlyAtTheEnd = speech + [Float](repeating: 0.002, count: 320)
        #expect(abs(WhisperGapNoise.level(of: [edgeOnlyAtTheEnd, speech]) - 0.002) < 1e-6)
        // The middle of an utterance is not an edge: a quiet stretch there is speech's own pause.
        let quietMiddle = speech + [Float](repeating: 0.001, count: 320) + speech
        #expect(abs(WhisperGapNoise.level(of: [quietMiddle]) - 0.008) < 1e-6)
        // Edges as loud as a tone are a signal, not a room: the gap gets -40 dBFS at most.
        #expect(WhisperGapNoise.level(of: [[Float](repeating: 0.3, count: 16000)]) == WhisperGapNoise.maximumLevel)
        #expect(WhisperGapNoise.level(of: [[0.1, 0.1]]) == 0, "no whole 20 ms frame: no level")
        #expect(WhisperGapNoise.samples(count: 5, level: 0, seed: 1) == [0, 0, 0, 0, 0])
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
