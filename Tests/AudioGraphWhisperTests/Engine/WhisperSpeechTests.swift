/// Issue 15, engine `whisper`, items "Decoding", "Finals" and "File runs": with the real tiny.en model, real and
/// unseen (espeak-ng) speech decodes under a measured WER bound, with timed words and a confidence; an eager
/// final equals the ordinary one; packed decoding gives each utterance its own words.
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.serialized, .ownThreads) struct WhisperSpeechTests {
    static let clips = ["librivox_0870", "librivox_0890", "forever_4", "espeak_meeting_a", "espeak_meeting_c"]

    /// Measured: 2 errors in 64 words one by one ("coldhearted" for "cold hearted"), 1 packed ("renew" for
    /// "review"); the bound (3 errors) leaves room for one more word on other CPUs' arithmetic.
    static let maximumWordErrorRate = 0.05

    private func score(_ texts: [String: String]) -> (errors: Int, words: Int) {
        Self.clips.reduce((0, 0)) { total, clip in
            let counts = WordErrorRate.errors(reference: WhisperTestSupport.references[clip] ?? "?", hypothesis: texts[clip] ?? "")
            return (total.0 + counts.errors, total.1 + counts.words)
        }
    }

    @Test func utterancesDecodeWholeWithTimedWords() throws {
        let recognizer = try WhisperTestSupport.realRecognizer(["packing": "off"])
        var texts: [String: String] = [:]
        for clip in Self.clips {
            let samples = try WhisperTestSupport.samples(clip)
            let result = try WhisperTestSupport.decode(recognizer, samples)
            texts[clip] = result.text
            let duration = Double(samples.count) / 16000
            #expect(!result.words.isEmpty, "\(clip)")
            #expect(result.words.map(\.word).joined(separator: " ") == result.text, "\(clip)")
            for (word, next) in zip(result.words, result.words.dropFirst()) {
                #expect(word.start <= word.end && word.end <= next.start + 1e-9, "\(clip): \(word) \(next)")
            }
            #expect(result.words.allSatisfy { $0.end <= duration + 0.01 }, "\(clip)")
            let confidence = try #require(result.confidence)
            #expect(confidence > 0.5 && confidence <= 1, "\(clip): \(confidence)")
        }
        let (errors, words) = score(texts)
        print("whisper WER one by one: \(errors)/\(words): \(texts)")
        #expect(Double(errors) / Double(words) <= Self.maximumWordErrorRate, "\(errors)/\(words): \(texts)")
    }

    @Test func packedWindowsGiveEachUtteranceItsWords() throws {
        let recognizer = try WhisperTestSupport.realRecognizer()
        var results: [RecognitionResult] = []
        for clip in Self.clips {
            let samples = try WhisperTestSupport.samples(clip)
            try recognizer.startUtterance()
            try samples.withUnsafeBufferPointer { try recognizer.process($0) }
            results += try recognizer.endUtteranceDeferring(speechEndsAfter: samples.count)
        }
        results += try recognizer.flushDeferredResults()
        #expect(results.count == Self.clips.count)
        // 5 clips, 27 s of speech: the first four fit in one 30 s window with 2 s gaps, the last goes alone.
        #expect(recognizer.finalDecodes < Self.clips.count)
        var texts: [String: String] = [:]
        for (clip, result) in zip(Self.clips, results) {
            texts[clip] = result.text
            let duration = Double(try WhisperTestSupport.samples(clip).count) / 16000
            #expect(result.words.allSatisfy { $0.start >= 0 && $0.end <= duration + 1e-9 }, "\(clip): \(result.words)")
        }
        let (errors, words) = score(texts)
        print("whisper WER packed (\(recognizer.finalDecodes) decodes): \(errors)/\(words): \(texts)")
        #expect(Double(errors) / Double(words) <= Self.maximumWordErrorRate, "\(errors)/\(words): \(texts)")
    }

    /// Issue 16, unseen speech with noise: two sentences in pink noise at 10 dB SNR, cut where the VAD cuts them
    /// and packed. With 2 s of digital silence between them whisper ended the window after the first and the
    /// second came back empty; with the recording's background in the gap both keep their words.
    @Test func packedUtterancesInPinkNoiseBothDecode() throws {
        let clip = try WhisperTestSupport.samples("espeak_names_pink10")
        let cuts = [Int(0.48 * 16000)..<Int(4.18 * 16000), Int(6.81 * 16000)..<Int(11.37 * 16000)]
        let recognizer = try WhisperTestSupport.realRecognizer()
        var results: [RecognitionResult] = []
        for cut in cuts {
            let samples = Array(clip[cut])
            try recognizer.startUtterance()
            try samples.withUnsafeBufferPointer { try recognizer.process($0) }
            results += try recognizer.endUtteranceDeferring(speechEndsAfter: samples.count)
        }
        results += try recognizer.flushDeferredResults()
        #expect(recognizer.finalDecodes == 1, "one packed window")
        #expect(results.count == 2 && results.allSatisfy { !$0.text.isEmpty }, "\(results.map(\.text))")
        let reference = WhisperTestSupport.references["espeak_names_pink10"] ?? "?"
        let counts = WordErrorRate.errors(reference: reference, hypothesis: results.map(\.text).joined(separator: " "))
        // Measured 9 errors in 23 words ("Darcy", "Reynolds", "Sir Flyer Interanto"); the second sentence
        // lost is 13 errors or more.
        #expect(counts.errors <= 11, "\(counts): \(results.map(\.text))")
    }

    @Test func eagerFinalEqualsTheOrdinaryFinal() throws {
        let samples = try WhisperTestSupport.samples("librivox_0870")
        // A real-time recognizer fits its encoder window to the audio (audioContext auto); so does this one.
        let plain = try WhisperTestSupport.realRecognizer(["packing": "off", "audioContext": "fit"])
        try plain.startUtterance()
        try samples.withUnsafeBufferPointer { try plain.process($0) }
        let ordinary = try plain.endUtterance(speechEndsAfter: samples.count - 8000)

        let eager = try WhisperTestSupport.realRecognizer(realtime: true)
        try eager.startUtterance()
        try samples.withUnsafeBufferPointer { try eager.process($0) }
        eager.prepareFinal(speechEndsAfter: samples.count - 8000)
        let early = try eager.endUtterance(speechEndsAfter: samples.count - 8000)
        #expect(eager.eagerFinalsUsed == 1)
        #expect(early == ordinary)
        #expect(!early.text.isEmpty)
    }
}
