/// How many encoder frames (whisper.cpp's `audio_ctx`) a decode of some samples reads when the window is fitted
/// to the audio: one frame is 20 ms (320 samples at 16 kHz), plus a margin of silence, up to the model's window.
///
/// The margin matters: at the audio's exact length whisper rarely finds the end of the text and repeats itself
/// ("go forward ten meters go forward ten meters…", WHISPER.md). Changing `audio_ctx` from one call to the next on
/// one state is safe only without flash attention, which the models here load without: whisper.cpp's flash path
/// reads the cross-attention cache padded to 256 frames, unmasked, so frames a longer earlier call left there
/// would leak into a shorter one (`WhisperAudioContextTests` checks that no text carries over).
public enum WhisperAudioContext {
    /// Samples per encoder frame (16 kHz, mel hop 160, the encoder's stride 2).
    public static let samplesPerFrame = 320
    /// Frames of margin after the audio: 384 (7.68 s; 64, 128 and 256 made short utterances loop, WHISPER.md and docs/speech.md).
    public static let margin = 384
    /// The margin in seconds, for the parameter's doc.
    public static let marginSeconds = Double(margin * samplesPerFrame) / 16000

    /// The encoder frames for `samples` samples, at most `window` (the model's `n_audio_ctx`, 1500).
    public static func frames(forSamples samples: Int, window: Int) -> Int {
        let audio = (max(0, samples) + samplesPerFrame - 1) / samplesPerFrame
        return min(window, audio + margin)
    }
}
