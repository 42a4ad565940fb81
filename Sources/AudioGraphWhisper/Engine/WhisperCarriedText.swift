/// The last words of earlier finals, given to the decoder as context before the next final (`contextWords`),
/// as whisper-cli carries the text of one 30 s window into the next. A pure value: the recognizer adds each
/// accepted final and clears it when the language changes.
public struct WhisperCarriedText: Sendable, Equatable {
    /// How many words are kept (0: none).
    public let limit: Int
    public private(set) var words: [Substring] = []

    public init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// Keeps the last `limit` words of what was carried and `text`.
    public mutating func add(_ text: String) {
        guard limit > 0 else { return }
        words += text.split(whereSeparator: \.isWhitespace)
        if words.count > limit { words.removeFirst(words.count - limit) }
    }

    public mutating func clear() {
        words.removeAll()
    }

    /// `prompt` (the script and user prompt) followed by the carried words; nil when both are empty.
    public func prompt(after prompt: String?) -> String? {
        let parts = [prompt, words.isEmpty ? nil : words.joined(separator: " ")].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
