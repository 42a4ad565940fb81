/// Issue 15, engine `whisper`, items "Finals" and "No invented speech": BPE tokens merge into timed words,
/// special tokens and non-speech annotations ([BLANK_AUDIO], (phone ringing), ♪) are dropped.
import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct WhisperWordsTests {
    @Test func tokensMergeIntoWordsWithTimes() {
        let tokens = [
            WhisperToken("[_BEG_]", start: 0, end: 0, special: true),
            WhisperToken(" Dash", start: 0.5, end: 0.7, probability: 0.9),
            WhisperToken("wood", start: 0.7, end: 1.0, probability: 0.4),
            WhisperToken(" had", start: 1.0, end: 1.2, probability: 0.8),
            WhisperToken(".", start: 1.2, end: 1.3, probability: 0.9),
            WhisperToken("[_TT_65]", start: 1.3, end: 1.3, special: true),
        ]
        let words = WhisperWords.merge(tokens)
        #expect(words.map(\.text) == ["Dashwood", "had."])
        #expect(words[0].start == 0.5 && words[0].end == 1.0)
        #expect(words[1].start == 1.0 && words[1].end == 1.3)
        #expect(abs(words[0].confidence - (0.9 * 0.4).squareRoot()) < 1e-9)
        #expect(WhisperWords.text(of: words) == "Dashwood had.")
    }

    @Test func multiByteCharactersSplitAcrossTokensJoin() {
        let bytes = Array(" café".utf8)
        let tokens = [
            WhisperToken(bytes: Array(bytes[0..<5]), start: 0, end: 0.2, probability: 1, logProbability: 0, special: false),
            WhisperToken(bytes: Array(bytes[5...]), start: 0.2, end: 0.4, probability: 1, logProbability: 0, special: false),
        ]
        #expect(WhisperWords.merge(tokens).map(\.text) == ["café"])
    }

    /// Hanzi have no space before them: within a segment they join, across segments (whisper's sentences) never.
    @Test func wordsNeverSpanTwoSegments() {
        let segments = [
            [WhisperToken("我想", start: 0.0, end: 0.4), WhisperToken("買", start: 0.4, end: 0.6),
             WhisperToken("。", start: 0.6, end: 0.7)],
            [WhisperToken("[_TT_150]", start: 3.0, end: 3.0, special: true), WhisperToken("再見", start: 3.0, end: 3.5)],
        ]
        let words = WhisperWords.merge(segments: segments)
        #expect(words.map(\.text) == ["我想買。", "再見"])
        #expect(words[1].start == 3.0 && !words[1].spaceBefore)
        #expect(WhisperWords.text(of: words) == "我想買。再見")
        #expect(WhisperWords.merge(segments.flatMap { $0 }).map(\.text) == ["我想買。再見"])
        #expect(WhisperWindow(segments: segments, noSpeechProbability: 0).words == words)
    }

    @Test func annotationsAreDropped() {
        func words(_ texts: [String]) -> [String] {
            WhisperWords.merge(texts.enumerated().map { WhisperToken($1, start: Double($0), end: Double($0) + 1) }).map(\.text)
        }
        #expect(words([" [", "BL", "ANK", "_", "AUDIO", "]"]).isEmpty)
        #expect(words([" (", "phone", " ringing", ")"]).isEmpty)
        #expect(words([" ♪", " la", " la", " ♪"]).isEmpty)
        #expect(words([" *", "music", "*"]).isEmpty)
        #expect(words([" Hello", " [", "laughs", "]", " there"]) == ["Hello", "there"])
        #expect(words([" ♪", " Thank", " you", " ♪", " Bye"]) == ["Bye"])
    }

    @Test func shiftedWordsStayInsideTheirUtterance() {
        let word = WhisperWord(text: "x", start: 3.2, end: 3.6)
        #expect(word.shifted(by: 3.0) == WhisperWord(text: "x", start: 3.2 - 3.0, end: 3.6 - 3.0))
        #expect(word.shifted(by: 3.4).start == 0)
    }
}
