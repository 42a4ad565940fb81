
/// The limits a caption cue keeps, as broadcasters use them.
public struct CueRules: Sendable, Equatable {
    /// Characters per line (spaces count). A single word longer than this stays whole on a line of its own.
    public var maxLineLength: Int
    /// Lines per cue.
    public var maxLines: Int
    /// Longest time a cue stays on screen, in seconds.
    public var maxCueSeconds: Double
    /// Shortest time a cue stays on screen, in seconds, where the next cue leaves room.
    public var minCueSeconds: Double

    public init(maxLineLength: Int = 42, maxLines: Int = 2, maxCueSeconds: Double = 7, minCueSeconds: Double = 1) {
        self.maxLineLength = max(1, maxLineLength)
        self.maxLines = max(1, maxLines)
        self.maxCueSeconds = max(0.001, maxCueSeconds)
        self.minCueSeconds = min(max(0, minCueSeconds), self.maxCueSeconds)
    }
}

/// Turns final transcript results into caption cues. A pure value type (no I/O), kept apart from the sink
/// the way Pipecat keeps its analyzers apart from processors, so the rules are tested alone.
///
/// The rules, for each final `TranscriptUpdate`:
/// - Words come from `update.words` with their times. An update without words is split at white space and
///   its words are spread over `[start, end]` in proportion to their character counts.
/// - A cue takes as many words as fit, in order: at most `maxLines` lines of at most `maxLineLength`
///   characters, lines broken between words only, and at most `maxCueSeconds` from its first word's start to
///   its last word's end. A word longer than a line is never split: it sits alone on its line (the one case
///   where a line is longer than `maxLineLength`).
/// - A cue's words are then broken into the fewest lines they need, balanced: the longest line is as short
///   as it can be and, among equally long splits, the upper lines are the shorter (bottom-heavy, the shape
///   broadcasters prefer).
/// - A cue starts at its first word's start and ends at its last word's end, extended to `minCueSeconds`
///   where the next cue of the same utterance leaves room. It never starts before the previous cue ended
///   (also across utterances: the builder remembers the last end, and a cue that would start earlier is
///   delayed to it), never lasts longer than `maxCueSeconds`, and lasts at least 1 ms. Times are whole
///   milliseconds, so cues written to files never overlap after rounding either.
///
/// The last cue of an utterance cannot know the next utterance (files are written cue by cue), so it is
/// extended to `minCueSeconds` regardless, and a next utterance beginning within that time starts a little
/// late instead of overlapping.
public struct CueBuilder: Sendable {
    public var rules: CueRules
    /// The end of the last cue made, in milliseconds (0 before the first).
    public private(set) var lastCueEndMilliseconds: Int = 0

    public init(rules: CueRules = CueRules()) {
        self.rules = rules
    }

    /// The end of the last cue made, in seconds.
    public var lastCueEnd: Double { Double(lastCueEndMilliseconds) / 1000 }

    /// The cues for a final result, in order. Partial results make no cues (they may still change).
    public mutating func cues(for update: TranscriptUpdate) -> [CaptionCue] {
        guard update.isFinal else { return [] }
        return cues(for: Self.timedWords(for: update))
    }

    /// The cues for words with times, in order.
    public mutating func cues(for words: [TranscriptUpdate.Word]) -> [CaptionCue] {
        let timed = Self.normalized(words)
        guard !timed.isEmpty else { return [] }
        let groups = group(timed)
        let maxCue = max(1, CaptionTime.milliseconds(rules.maxCueSeconds))
        let minCue = min(CaptionTime.milliseconds(rules.minCueSeconds), maxCue)
        var cues: [CaptionCue] = []
        for (index, group) in groups.enumerated() {
            let rawStart = group.first!.start
            let rawEnd = group.last!.end
            let start = max(rawStart, lastCueEndMilliseconds)
            var end = max(rawEnd, start + minCue)
            if index + 1 < groups.count {
                // Extend only into the gap before the next cue, not over it.
                end = min(end, max(max(rawEnd, groups[index + 1].first!.start), start + 1))
            }
            end = min(end, start + maxCue)
            end = max(end, start + 1)
            lastCueEndMilliseconds = end
            let lines = Self.breakLines(group.map(\.text), maxLineLength: rules.maxLineLength)
            cues.append(CaptionCue(start: Double(start) / 1000, end: Double(end) / 1000, lines: lines))
        }
        return cues
    }

    /// Forgets the last cue's end (a new stream).
    public mutating func reset() { lastCueEndMilliseconds = 0 }

    // MARK: Words

    /// The words of an update with times: its own, or, when it has none, its text's words spread over
    /// `[start, end]` in proportion to their character counts.
    public static func timedWords(for update: TranscriptUpdate) -> [TranscriptUpdate.Word] {
        let given = update.words.filter { !$0.word.allSatisfy(\.isWhitespace) }
        if !given.isEmpty { return given }
        let texts = update.text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !texts.isEmpty else { return [] }
        let total = Double(texts.reduce(0) { $0 + $1.count })
        let start = update.start
        let duration = max(0, update.end - update.start)
        var words: [TranscriptUpdate.Word] = []
        var characters = 0
        for text in texts {
            let wordStart = start + duration * Double(characters) / total
            characters += text.count
            let wordEnd = start + duration * Double(characters) / total
            words.append(TranscriptUpdate.Word(word: text, start: wordStart, end: wordEnd))
        }
        return words
    }

    struct TimedWord {
        var text: String
        var start: Int
        var end: Int
    }

    /// Words in whole milliseconds, each ending no earlier than it starts. A "word" holding spaces is split
    /// into its parts over its time (so every line break falls at a space).
    static func normalized(_ words: [TranscriptUpdate.Word]) -> [TimedWord] {
        var out: [TimedWord] = []
        for word in words {
            let parts = word.word.split(whereSeparator: \.isWhitespace).map(String.init)
            guard !parts.isEmpty else { continue }
            let start = CaptionTime.milliseconds(word.start)
            let end = max(start, CaptionTime.milliseconds(word.end))
            if parts.count == 1 {
                out.append(TimedWord(text: parts[0], start: start, end: end))
                continue
            }
            let total = parts.reduce(0) { $0 + $1.count }
            var characters = 0
            for part in parts {
                let partStart = start + (end - start) * characters / total
                characters += part.count
                out.append(TimedWord(text: part, start: partStart, end: start + (end - start) * characters / total))
            }
        }
        return out
    }

    // MARK: Cues and lines

    /// Splits words into cues: each the longest run that fits `maxLines` lines and `maxCueSeconds`.
    func group(_ words: [TimedWord]) -> [[TimedWord]] {
        let maxCue = max(1, CaptionTime.milliseconds(rules.maxCueSeconds))
        var groups: [[TimedWord]] = []
        var current: [TimedWord] = []
        var lengths: [Int] = []
        for word in words {
            if let first = current.first {
                let fitsTime = word.end - first.start <= maxCue
                if fitsTime && Self.lineCount(lengths + [word.text.count], maxLineLength: rules.maxLineLength) <= rules.maxLines {
                    current.append(word)
                    lengths.append(word.text.count)
                    continue
                }
                groups.append(current)
            }
            current = [word]
            lengths = [word.text.count]
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }

    /// The fewest lines words of these lengths need (greedy filling is optimal for that); an overlong word
    /// takes a line of its own.
    static func lineCount(_ lengths: [Int], maxLineLength: Int) -> Int {
        var lines = 0
        var current = -1  // length of the current line; -1: no line open
        for length in lengths {
            if current >= 0 && current + 1 + length <= maxLineLength {
                current += 1 + length
            } else {
                lines += 1
                current = length
            }
        }
        return lines
    }

    /// Breaks words into the fewest lines of at most `maxLineLength` characters, balanced: the longest line as
    /// short as possible, then the upper lines shorter (bottom-heavy). A word longer than a line sits alone.
    public static func breakLines(_ words: [String], maxLineLength: Int) -> [String] {
        guard !words.isEmpty else { return [] }
        let lengths = words.map(\.count)
        let count = lineCount(lengths, maxLineLength: maxLineLength)
        if count == 1 { return [words.joined(separator: " ")] }

        // Prefix sums: the length of words[i..<j] joined by spaces is sums[j] - sums[i] + (j - i - 1).
        var sums = [0]
        for length in lengths { sums.append(sums.last! + length) }
        func width(_ i: Int, _ j: Int) -> Int { sums[j] - sums[i] + (j - i - 1) }
        func valid(_ i: Int, _ j: Int) -> Bool { j - i == 1 || width(i, j) <= maxLineLength }

        // best[k][i]: the best break of words[i...] into exactly k lines, as its line widths (nil: impossible).
        // Compared by the longest line, then line by line from the top (shorter upper lines win).
        let n = words.count
        var best = [[[Int]?]](repeating: [[Int]?](repeating: nil, count: n + 1), count: count + 1)
        var breaks = [[Int]](repeating: [Int](repeating: -1, count: n + 1), count: count + 1)
        for i in 0..<n where valid(i, n) {
            best[1][i] = [width(i, n)]
            breaks[1][i] = n
        }
        func better(_ a: [Int], _ b: [Int]) -> Bool {
            let (ma, mb) = (a.max()!, b.max()!)
            if ma != mb { return ma < mb }
            return a.lexicographicallyPrecedes(b)
        }
        if count >= 2 {
            for k in 2...count {
                for i in 0..<n {
                    var choice: [Int]?
                    var choiceBreak = -1
                    var j = i + 1
                    while j < n && valid(i, j) {
                        if let rest = best[k - 1][j] {
                            let candidate = [width(i, j)] + rest
                            if choice == nil || better(candidate, choice!) {
                                choice = candidate
                                choiceBreak = j
                            }
                        }
                        j += 1
                    }
                    best[k][i] = choice
                    breaks[k][i] = choiceBreak
                }
            }
        }
        var lines: [String] = []
        var i = 0
        var k = count
        while k > 0 {
            let j = breaks[k][i]
            lines.append(words[i..<j].joined(separator: " "))
            i = j
            k -= 1
        }
        return lines
    }
}
