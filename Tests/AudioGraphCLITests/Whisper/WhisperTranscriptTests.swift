/// Issue 15, "Accuracy": real speech through `audiograph run` with the VAD and the whisper engine (the real
/// tiny.en model, which must be installed: the test fails without it) gives a transcript under a word error
/// rate bound measured on these clips (benchmarks/whisper.sh reports the same scoring on all 14).
import AudioGraphTestKit
import Foundation
import Testing

@Suite struct WhisperTranscriptTests {
    /// Six of the fixture clips (LibriVox read speech, commands, digits, cards): 56 reference words.
    static let clips = ["librivox_0870", "librivox_0880", "librivox_0930", "goforward", "digits_dhd_2934z", "cards_005"]
    /// Measured (benchmarks/whisper.sh, one run per clip, tiny.en): 3 errors on these clips (librivox_0880 2,
    /// cards_005 1); this test's single packed run passed at the bound. The bound leaves one word of margin.
    static let maximumErrors = 4

    @Test func realSpeechThroughTheVADAndWhisperIsTranscribed() async throws {
        _ = try WhisperCLI.requireModel()
        let dir = try TemporaryFolder()
        try await WhisperCLI.makeSpeech(Self.clips, in: dir)
        try dir.write("whisper.json", WhisperCLI.sessionConfig(recognizer: #"{ "type": "recognizer", "engine": "whisper" }"#))
        let result = try await Harness.audiograph(["run", "whisper.json", "--quiet"], in: dir)
        try #require(result.status == 0, "\(result)")
        let texts = try WhisperCLI.captionTexts(dir.path("out/captions.json"))
        let score = try WhisperCLI.wordErrors(of: texts, clips: Self.clips)
        #expect(score.words == 56)
        #expect(score.errors <= Self.maximumErrors,
                "\(score.errors) errors in \(score.words) words (bound \(Self.maximumErrors)): \(texts)")
        #expect(texts.count >= 4, "the VAD should split the clips into utterances: \(texts)")
    }
}
