/// Packs consecutive utterances into shared decoding windows, and maps what a window decoded back to its
/// utterances. whisper encodes 30 s of audio whatever it is given, so five 4 s utterances cost five encodes one
/// by one but one encode packed (what whisper-cli's own `--vad` does with the VAD's segments). Pure: no audio
/// decoding here.
public struct WhisperPacker: Sendable, Equatable {
    /// Audio per window, in frames (whisper's 30 s at 16 kHz).
    public var windowFrames: Int
    /// The gap between two utterances in a window, in frames: 2 s by default. With 1 s, whisper ran sentences
    /// on across the gap in one segment and its token times put the last words of an utterance into the next
    /// (7 of the 14 ../shared/speech clips lost or gained words); with 2 s every word landed in its utterance.
    public var gapFrames: Int

    public static let sampleRate = 16000

    public init(windowFrames: Int = 30 * WhisperPacker.sampleRate, gapFrames: Int = 2 * WhisperPacker.sampleRate) {
        self.windowFrames = windowFrames
        self.gapFrames = gapFrames
    }

    /// Frames a window holding utterances of these lengths needs (gaps between them).
    public func frames(_ lengths: [Int]) -> Int {
        lengths.reduce(0, +) + max(0, lengths.count - 1) * gapFrames
    }

    /// Whether an utterance of `length` frames joins a window that holds `lengths` already.
    public func fits(_ length: Int, after lengths: [Int]) -> Bool {
        frames(lengths + [length]) <= windowFrames
    }

    /// Each utterance's place in a window that holds them in order: frame ranges.
    public func spans(_ lengths: [Int]) -> [Range<Int>] {
        var start = 0
        return lengths.map { length in
            defer { start += length + gapFrames }
            return start..<(start + length)
        }
    }

    /// The window's audio: the utterances with their background between them (`WhisperGapNoise`: noise at the
    /// utterances' quietest level, silence when that is 0).
    public func assemble(_ utterances: [[Float]]) -> [Float] {
        var samples: [Float] = []
        samples.reserveCapacity(frames(utterances.map(\.count)))
        let level = WhisperGapNoise.level(of: utterances)
        for (index, utterance) in utterances.enumerated() {
            if index > 0 { samples += WhisperGapNoise.samples(count: gapFrames, level: level, seed: UInt64(index)) }
            samples += utterance
        }
        return samples
    }

    /// Gives each word of a decoded window to the utterance it was said in — the one whose span holds the
    /// word's middle — with times relative to that utterance's start and clamped to its length.
    ///
    /// Words whisper timed into a gap (its token times drift, most at the end of a long window) go to the nearest
    /// utterance, except the words that finish a sentence the utterance before the gap left open: an utterance
    /// the VAD ends at a pause usually ends a sentence, and a word such as "today." timed into the silence after
    /// "…we can finish early" belongs there, not at the start of the next caption (seen on the 60 s call, twice).
    public func assign(_ words: [WhisperWord], toUtterancesOf lengths: [Int]) -> [[WhisperWord]] {
        let rate = Double(Self.sampleRate)
        let spans = self.spans(lengths).map { (start: Double($0.lowerBound) / rate, end: Double($0.upperBound) / rate) }
        guard !spans.isEmpty else { return [] }
        let middles = words.map { ($0.start + $0.end) / 2 }
        var owners = middles.map { nearest($0, spans) }
        // The gap after utterance `index`: the words whose middle lies in it, in order.
        for index in 0..<(spans.count - 1) {
            let inGap = middles.indices.filter { middles[$0] > spans[index].end && middles[$0] < spans[index + 1].start }
            guard let closing = inGap.last(where: { Self.endsSentence(words[$0].text) }) else { continue }
            let before = words.indices.last { $0 < inGap[0] && owners[$0] == index }
            guard let before, !Self.endsSentence(words[before].text) else { continue }
            for word in inGap where word <= closing { owners[word] = index }
        }
        var assigned = [[WhisperWord]](repeating: [], count: spans.count)
        for (word, owner) in zip(words, owners) {
            var moved = word.shifted(by: spans[owner].start)
            let length = spans[owner].end - spans[owner].start
            moved.start = min(moved.start, length)
            moved.end = min(max(moved.end, moved.start), length)
            assigned[owner].append(moved)
        }
        return assigned
    }

    /// The utterance whose span holds `time`, else the nearest.
    private func nearest(_ time: Double, _ spans: [(start: Double, end: Double)]) -> Int {
        var best = 0
        var bestDistance = Double.infinity
        for (index, span) in spans.enumerated() {
            let distance = time < span.start ? span.start - time : (time > span.end ? time - span.end : 0)
            if distance < bestDistance {
                best = index
                bestDistance = distance
            }
        }
        return best
    }

    /// Whether a word as whisper wrote it ends a sentence (., ?, ! and their full-width forms, before closing
    /// quotes or brackets).
    static func endsSentence(_ text: String) -> Bool {
        let trimmed = text.reversed().drop { "\"'”’)]」』".contains($0) }
        guard let last = trimmed.first else { return false }
        return ".?!。？！…".contains(last)
    }
}
