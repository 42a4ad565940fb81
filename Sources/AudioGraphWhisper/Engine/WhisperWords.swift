import AudioGraphCore
import Foundation

/// A word merged from BPE tokens, with what the hallucination rules need.
public struct WhisperWord: Sendable, Equatable {
    /// The word as written (punctuation kept, no surrounding space).
    public var text: String
    /// Written after a space (BPE pieces that start a word carry one).
    public var spaceBefore: Bool
    /// Seconds from the start of the decoded audio.
    public var start: Double
    public var end: Double
    /// The log-probabilities of its tokens.
    public var logProbabilities: [Double]

    public init(text: String, spaceBefore: Bool = true, start: Double, end: Double, logProbabilities: [Double] = [0]) {
        self.text = text
        self.spaceBefore = spaceBefore
        self.start = start
        self.end = end
        self.logProbabilities = logProbabilities
    }

    /// The geometric mean of its tokens' probabilities (0…1).
    public var confidence: Double {
        guard !logProbabilities.isEmpty else { return 0 }
        return min(1, max(0, exp(logProbabilities.reduce(0, +) / Double(logProbabilities.count))))
    }

    /// The same word moved `offset` seconds earlier (clamped at 0): times relative to an utterance's start.
    public func shifted(by offset: Double) -> WhisperWord {
        var word = self
        word.start = max(0, start - offset)
        word.end = max(word.start, end - offset)
        return word
    }
}

/// Tokens to words, and words to text.
public enum WhisperWords {
    /// Merges BPE tokens into words: special tokens are dropped; a token whose text starts with a space starts a
    /// new word; bytes are joined before they become text (a token may hold part of a UTF-8 character).
    /// Non-speech annotations whisper writes instead of words — `[BLANK_AUDIO]`, `(phone ringing)`, `*music*`,
    /// `♪ … ♪` — are dropped too.
    public static func merge(_ tokens: [WhisperToken]) -> [WhisperWord] {
        merge(segments: [tokens])
    }

    /// The same for a decode's segments: a word never spans two of them. Whisper ends a segment at a timestamp,
    /// between sentences, but in scripts without spaces (Hanzi, kana) the next segment's first token has no space
    /// before it, so merged across segments a packed window's sentences became one "word", all of it given to one
    /// utterance.
    public static func merge(segments: [[WhisperToken]]) -> [WhisperWord] {
        dropAnnotations(segments.flatMap { words(of: $0) })
    }

    /// Tokens to words, annotations kept.
    private static func words(of tokens: [WhisperToken]) -> [WhisperWord] {
        var words: [WhisperWord] = []
        var bytes: [UInt8] = []
        var current: WhisperWord?
        func close() {
            guard var word = current else { return }
            let text = String(decoding: bytes, as: UTF8.self)
            word.spaceBefore = text.first?.isWhitespace ?? false
            word.text = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if !word.text.isEmpty { words.append(word) }
            current = nil
            bytes = []
        }
        for token in tokens where !token.special && !token.bytes.isEmpty {
            let startsWord = token.bytes.first == UInt8(ascii: " ")
            if startsWord || current == nil {
                close()
                current = WhisperWord(text: "", start: token.start, end: token.end, logProbabilities: [])
            }
            bytes += token.bytes
            if var word = current {
                word.end = max(word.end, token.end)
                word.logProbabilities.append(token.logProbability)
                current = word
            }
        }
        close()
        return words
    }

    /// Drops words inside `[…]`, `(…)`, `*…*` and `♪…♪` (whisper's non-speech annotations), and music signs.
    static func dropAnnotations(_ words: [WhisperWord]) -> [WhisperWord] {
        var kept: [WhisperWord] = []
        var closing: Character?
        var inMusic = false
        for word in words {
            let musicSigns = word.text.filter { "♪♫♬".contains($0) }.count
            if musicSigns > 0 {
                // An odd number of signs opens or closes a sung passage (`♪ la la ♪`); the word itself goes.
                if musicSigns % 2 == 1 { inMusic.toggle() }
                continue
            }
            if inMusic { continue }
            if let close = closing {
                if word.text.contains(close) { closing = nil }
                continue
            }
            if let first = word.text.first, let close = Self.annotationClose[first] {
                // Opened and closed in this word (`[BLANK_AUDIO]`, `(laughs)`), or open until a later word closes it.
                if !word.text.dropFirst().contains(close) { closing = close }
                continue
            }
            kept.append(word)
        }
        return kept
    }

    private static let annotationClose: [Character: Character] = ["[": "]", "(": ")", "*": "*"]

    /// The text of words as whisper wrote them (spaces where the tokens had them).
    public static func text(of words: [WhisperWord]) -> String {
        var text = ""
        for word in words {
            if !text.isEmpty && word.spaceBefore { text += " " }
            text += word.text
        }
        return text
    }
}
