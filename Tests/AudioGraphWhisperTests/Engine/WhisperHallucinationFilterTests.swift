/// Issue 15, engine `whisper`, item "No invented speech": the no-speech/log-probability rule and the
/// compression-ratio rule, on words as the decoder gives them.
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct WhisperHallucinationFilterTests {
    private func words(_ text: String, logProbability: Double) -> [WhisperWord] {
        text.split(separator: " ").enumerated().map {
            WhisperWord(text: String($1), start: Double($0), end: Double($0) + 0.5, logProbabilities: [logProbability])
        }
    }

    @Test func noSpeechNeedsBothProbabilities() {
        let filter = WhisperHallucinationFilter()
        #expect(filter.rejection(of: words("Thank you.", logProbability: -1.5), noSpeechProbability: 0.9) == .noSpeech)
        // Confident words stand even when the window looked silent, and unsure words when it did not.
        #expect(filter.rejection(of: words("Thank you.", logProbability: -0.2), noSpeechProbability: 0.9) == nil)
        #expect(filter.rejection(of: words("Thank you.", logProbability: -1.5), noSpeechProbability: 0.1) == nil)
    }

    @Test func repetitionLoopsAreRejected() {
        let filter = WhisperHallucinationFilter()
        let loop = Array(repeating: "go forward ten meters", count: 8).joined(separator: " ")
        #expect(WhisperHallucinationFilter.compressionRatio(loop) > 2.4)
        #expect(filter.rejection(of: words(loop, logProbability: -0.1), noSpeechProbability: 0) == .repetitive)
        let sentence = "and mister john dashwood had then leisure to consider how much there might be prudently in his power"
        #expect(WhisperHallucinationFilter.compressionRatio(sentence) < 1.8)
        #expect(filter.rejection(of: words(sentence, logProbability: -0.3), noSpeechProbability: 0.02) == nil)
    }

    /// A loop too short for the compression ratio: one word five times or more.
    @Test func oneWordRepeatedIsALoop() {
        let filter = WhisperHallucinationFilter()
        for loop in ["beep beep beep beep beep beep", "The, the, the, the, the.", "5 5 5 5 5"] {
            #expect(WhisperHallucinationFilter.compressionRatio(loop) < 2.4)
            #expect(filter.rejection(of: words(loop, logProbability: -0.1), noSpeechProbability: 0) == .repetitive, "\(loop)")
        }
        for speech in ["no no no no", "no no no no yes", "go go go go gone"] {
            #expect(filter.rejection(of: words(speech, logProbability: -0.1), noSpeechProbability: 0) == nil, "\(speech)")
        }
    }

    @Test func thresholdsComeFromTheSettings() {
        let settings = WhisperSettings(["noSpeechThreshold": 0.95, "logProbThreshold": -3, "compressionRatioThreshold": 10])
        let filter = WhisperHallucinationFilter(settings)
        #expect(filter == WhisperHallucinationFilter(noSpeechThreshold: 0.95, logProbThreshold: -3, compressionRatioThreshold: 10))
        #expect(filter.rejection(of: words("Thank you.", logProbability: -1.5), noSpeechProbability: 0.9) == nil)
    }
}
