import AudioGraphCore
import CWhisper
import Foundation

/// The rules that keep whisper from writing speech nobody said (on silence, noise and tones it writes "you",
/// "Thank you." or "[BLANK_AUDIO]"). Applied to each utterance's words after annotations are dropped
/// (`WhisperWords.merge`); whisper.cpp itself also suppresses blank and non-speech tokens and skips a window whose
/// no-speech probability and average log-probability both say silence.
public struct WhisperHallucinationFilter: Sendable, Equatable {
    public var noSpeechThreshold: Double
    public var logProbThreshold: Double
    public var compressionRatioThreshold: Double

    public init(noSpeechThreshold: Double = WhisperSettings.defaultNoSpeechThreshold,
                logProbThreshold: Double = WhisperSettings.defaultLogProbThreshold,
                compressionRatioThreshold: Double = WhisperSettings.defaultCompressionRatioThreshold) {
        self.noSpeechThreshold = noSpeechThreshold
        self.logProbThreshold = logProbThreshold
        self.compressionRatioThreshold = compressionRatioThreshold
    }

    public init(_ settings: WhisperSettings) {
        self.init(noSpeechThreshold: settings.noSpeechThreshold, logProbThreshold: settings.logProbThreshold,
                  compressionRatioThreshold: settings.compressionRatioThreshold)
    }

    /// Why words were rejected.
    public enum Rejection: String, Sendable, Equatable {
        /// The window's no-speech probability is above its threshold and the words' average log-probability
        /// below its own (OpenAI's rule).
        case noSpeech
        /// The text compresses too well (a repetition loop: "go forward go forward go forward…"), or is one word
        /// said `repeatedWordLimit` times or more.
        case repetitive
    }

    /// nil when the words stand; else why they all go.
    public func rejection(of words: [WhisperWord], noSpeechProbability: Double) -> Rejection? {
        guard !words.isEmpty else { return nil }
        if noSpeechProbability > noSpeechThreshold && Self.averageLogProbability(words) < logProbThreshold { return .noSpeech }
        if Self.compressionRatio(WhisperWords.text(of: words)) > compressionRatioThreshold { return .repetitive }
        if Self.isOneWordRepeated(words) { return .repetitive }
        return nil
    }

    /// Words in a row, all the same, that make a loop (`isOneWordRepeated`).
    public static let repeatedWordLimit = 5

    /// Whether the words are one word, `repeatedWordLimit` times or more (case and punctuation aside): a loop too
    /// short for zlib to see. With 5 beams, on the packed tones of WhisperNonSpeechTests, whisper wrote "beep beep
    /// beep beep beep beep" (compression ratio 1.81); greedy, on a noisy heldout clip with flash attention on, "the
    /// the the the the" (1.36).
    public static func isOneWordRepeated(_ words: [WhisperWord]) -> Bool {
        guard words.count >= repeatedWordLimit else { return false }
        let keys = Set(words.map { $0.text.lowercased().filter { $0.isLetter || $0.isNumber } })
        return keys.count == 1 && keys.first?.isEmpty == false
    }

    /// The mean of the words' token log-probabilities.
    public static func averageLogProbability(_ words: [WhisperWord]) -> Double {
        let all = words.flatMap(\.logProbabilities)
        return all.isEmpty ? 0 : all.reduce(0, +) / Double(all.count)
    }

    /// UTF-8 bytes over zlib-compressed bytes, as OpenAI's Whisper measures it (repetitive text scores high;
    /// ordinary sentences 1.0–1.8).
    public static func compressionRatio(_ text: String) -> Double {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return 0 }
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = compress2(&output, &length, bytes, uLong(bytes.count), 9)
        guard status == Z_OK, length > 0 else { return 0 }
        return Double(bytes.count) / Double(length)
    }
}
