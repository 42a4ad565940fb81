/// Issue 15, engine `whisper`, item "Partials while speech goes on" and the real-time latency: the encoder window
/// fitted to the audio (`audioContext`): the frames it asks for, when it applies, that real speech still decodes
/// right, and that no text or probability carries over from a longer decode on the same state.
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct WhisperAudioContextTests {
    @Test func framesAreTheAudioPlusTheMarginUpToTheWindow() {
        #expect(WhisperAudioContext.frames(forSamples: 0, window: 1500) == 384)
        #expect(WhisperAudioContext.frames(forSamples: 16000, window: 1500) == 50 + 384)
        #expect(WhisperAudioContext.frames(forSamples: 321, window: 1500) == 2 + 384)
        #expect(WhisperAudioContext.frames(forSamples: 16000 * 22, window: 1500) == 1100 + 384)
        #expect(WhisperAudioContext.frames(forSamples: 16000 * 23, window: 1500) == 1500)
        #expect(WhisperAudioContext.frames(forSamples: 16000 * 60, window: 1500) == 1500)
        #expect(WhisperAudioContext.marginSeconds == 7.68)
    }

    @Test func autoFitsInRealTimeOnly() {
        #expect(WhisperSettings(["audioContext": "auto"]).fitsAudioContext(realtime: true))
        #expect(!WhisperSettings(["audioContext": "auto"]).fitsAudioContext(realtime: false))
        #expect(WhisperSettings(["audioContext": "fit"]).fitsAudioContext(realtime: false))
        #expect(!WhisperSettings(["audioContext": "full"]).fitsAudioContext(realtime: true))
    }

    /// Partials are previews: fitted, greedy, without token timestamps and on half the threads, whatever the
    /// finals use (`audioContext` full keeps the finals' whole window only).
    @Test func partialsAreAlwaysFitted() {
        let finals = WhisperDecodeOptions(threads: 2, beamSize: 5, language: "en", initialPrompt: nil, noSpeechThreshold: 0.6,
                                          logProbThreshold: -1, fitsAudioContext: false)
        let partials = WhisperBackground.partialOptions(finals)
        #expect(partials.fitsAudioContext && partials.beamSize == nil && !partials.tokenTimestamps && partials.threads == 1)
        #expect(!finals.fitsAudioContext)
    }

    /// Short and long speech decodes with the window fitted as it does with the whole window (librivox_0870 is 7.1 s,
    /// forever_4 5.8 s; their references have 29 words).
    @Test func fittedWindowsDecodeRealSpeech() throws {
        let fitted = try WhisperTestSupport.realRecognizer(["packing": "off", "audioContext": "fit"])
        for clip in ["librivox_0870", "forever_4"] {
            let result = try WhisperTestSupport.decode(fitted, try WhisperTestSupport.samples(clip))
            let counts = WordErrorRate.errors(reference: WhisperTestSupport.references[clip] ?? "?", hypothesis: result.text)
            #expect(counts.errors <= 1, "\(clip): \(result.text)")
        }
    }

    /// A shorter decode after a longer one on the same state gives exactly what it gives on a fresh state: the
    /// same words, times and confidences (with whisper.cpp's flash attention the stale cross-attention frames
    /// past the shorter window would be read).
    @Test func nothingCarriesOverFromALongerDecode() throws {
        let short = try WhisperTestSupport.samples("forever_4")
        let fresh = try WhisperTestSupport.decode(
            try WhisperTestSupport.realRecognizer(["packing": "off", "audioContext": "fit"]), short)
        let reused = try WhisperTestSupport.realRecognizer(["packing": "off", "audioContext": "fit"])
        _ = try WhisperTestSupport.decode(reused, try WhisperTestSupport.samples("jfk"))
        let after = try WhisperTestSupport.decode(reused, short)
        #expect(!fresh.text.isEmpty)
        #expect(after == fresh)
    }
}
