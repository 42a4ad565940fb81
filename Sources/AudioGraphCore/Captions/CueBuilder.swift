
/// The limits a caption cue keeps, as broadcasters use them.
public struct CueRules: Sendable, Equatable {
    /// Columns per line, spaces included: a character counts one, a Hanzi, kana, Hangul syllable or emoji two
    /// (`TerminalWidth`), so 42 holds 21 Chinese characters. A single unit (`CaptionUnit`: a word, or a Hanzi or
    /// kana with the punctuation held to it) longer than this stays whole on a line of its own.
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
///   columns, and at most `maxCueSeconds` from its first word's start to its last word's end. Lines break
///   between words, and in Chinese and Japanese, which have no spaces, between characters, never before
///   closing punctuation or after opening punctuation (`CaptionUnits`); no space is put between two pieces of
///   Chinese or Japanese. A unit longer than a line (a word; in Chinese and Japanese a character with the
///   punctuation held to it) is never split: it sits alone on its line (the one case where a line is longer
///   than `maxLineLength`).
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
            let lines = Self.breakLines(units: group.map(\.unit), maxLineLength: rules.maxLineLength)
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

    /// A caption unit (`CaptionUnit`: a word, or one Hanzi or kana) with its time in whole milliseconds.
    struct TimedWord {
        var text: String
        var start: Int
        var end: Int
        var joinsPrevious = false
        var unit: CaptionUnit { CaptionUnit(text, joinsPrevious: joinsPrevious) }
    }

    /// Words as caption units in whole milliseconds, each ending no earlier than it starts. A word that holds
    /// several units (parts between spaces, or Chinese or Japanese characters) shares its time among them by
    /// character count, so every line break falls at a space or between two such characters.
    static func normalized(_ words: [TranscriptUpdate.Word]) -> [TimedWord] {
        var out: [TimedWord] = []
        for (word, units) in zip(words, CaptionUnits.units(of: words.map(\.word))) where !units.isEmpty {
            let start = CaptionTime.milliseconds(word.start)
            let end = max(start, CaptionTime.milliseconds(word.end))
            let total = units.reduce(0) { $0 + $1.text.count }
            var characters = 0
            for unit in units {
                let unitStart = start + (end - start) * characters / total
                characters += unit.text.count
                out.append(TimedWord(text: unit.text, start: unitStart, end: start + (end - start) * characters / total,
                                     joinsPrevious: unit.joinsPrevious))
            }
        }
        // A word that begins with "，" or "」" stays with the word before it, and their times join.
        return CaptionUnits.glue(out, unit: \.unit) { first, next in
            first.text = CaptionUnits.text(of: [first.unit, next.unit])
            first.end = max(first.end, next.end)
        }
    }

    // MARK: Cues and lines

    /// Splits units into cues: each the longest run that fits `maxLines` lines and `maxCueSeconds`.
    func group(_ words: [TimedWord]) -> [[TimedWord]] {
        let maxCue = max(1, CaptionTime.milliseconds(rules.maxCueSeconds))
        var groups: [[TimedWord]] = []
        var current: [TimedWord] = []
        for word in words {
            if let first = current.first {
                let fitsTime = word.end - first.start <= maxCue
                if fitsTime && Self.lineCount((current + [word]).map(\.unit), maxLineLength: rules.maxLineLength) <= rules.maxLines {
                    current.append(word)
                    continue
                }
                groups.append(current)
            }
            current = [word]
        }
        if !current.isEmpty { groups.append(current) }
        return groups
    }

    /// The fewest lines units need (greedy filling is optimal for that); an overlong unit takes a line of its
    /// own. A line's width counts columns (`CaptionUnit.width`) and a space between units that do not join.
    static func lineCount(_ units: [CaptionUnit], maxLineLength: Int) -> Int {
        var lines = 0
        var current = -1  // width of the current line; -1: no line open
        for unit in units {
            let width = unit.width
            let space = unit.joinsPrevious ? 0 : 1
            if current >= 0 && current + space + width <= maxLineLength {
                current += space + width
            } else {
                lines += 1
                current = width
            }
        }
        return lines
    }

    /// Breaks words into the fewest lines of at most `maxLineLength` columns, balanced (`breakLines(units:)`).
    /// Lines break at spaces and, in Chinese and Japanese, between characters (`CaptionUnits`).
    public static func breakLines(_ words: [String], maxLineLength: Int) -> [String] {
        breakLines(units: CaptionUnits.glued(CaptionUnits.units(of: words).flatMap { $0 }), maxLineLength: maxLineLength)
    }

    /// Breaks units into the fewest lines of at most `maxLineLength` columns, balanced: the longest line as
    /// short as possible, then the upper lines shorter (bottom-heavy). A unit longer than a line sits alone.
    /// Every boundary between units is a place to break: glue the units first (`CaptionUnits.glued`).
    public static func breakLines(units: [CaptionUnit], maxLineLength: Int) -> [String] {
        guard !units.isEmpty else { return [] }
        let count = lineCount(units, maxLineLength: maxLineLength)
        if count == 1 { return [CaptionUnits.text(of: units)] }

        // Prefix sums: the width of units[i..<j] on one line is sums[j] - sums[i] plus the spaces before
        // units i+1..<j, spaces[j] - spaces[i + 1].
        var sums = [0]
        var spaces = [0]
        for unit in units {
            sums.append(sums.last! + unit.width)
            spaces.append(spaces.last! + (unit.joinsPrevious ? 0 : 1))
        }
        func width(_ i: Int, _ j: Int) -> Int { sums[j] - sums[i] + spaces[j] - spaces[i + 1] }
        func valid(_ i: Int, _ j: Int) -> Bool { j - i == 1 || width(i, j) <= maxLineLength }

        // best[k][i]: the best break of units[i...] into exactly k lines, as its line widths (nil: impossible).
        // Compared by the longest line, then line by line from the top (shorter upper lines win).
        let n = units.count
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
            lines.append(CaptionUnits.text(of: units[i..<j]))
            i = j
            k -= 1
        }
        return lines
    }
}
