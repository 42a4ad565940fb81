@testable import AudioGraphCore
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphSpeech

// `CueBuilder` alone: line breaking, cue timing, words without times, and property tests over many random
// utterances (every cue within the limits, cues in order and never overlapping, every word exactly once).

private typealias Word = TranscriptUpdate.Word

private func final(_ words: [Word], segment: Int = 1) -> TranscriptUpdate {
    TranscriptUpdate(segment: segment, revision: 1, isFinal: true, start: words.first?.start ?? 0,
                     end: words.last?.end ?? 0, text: words.map(\.word).joined(separator: " "), words: words)
}

private func ms(_ seconds: Double) -> Int { CaptionTime.milliseconds(seconds) }

@Suite(.ownThreads) struct CaptionCueBuilderTests {
    // MARK: Lines

    @Test("lines break between words into the fewest lines, balanced and bottom-heavy")
    func balancedLines() {
        let words = "one two three four five six seven eight nine ten eleven".split(separator: " ").map(String.init)
        let lines = CueBuilder.breakLines(words, maxLineLength: 42)
        #expect(lines == ["one two three four five six", "seven eight nine ten eleven"])
        // Greedy filling would give 40 + 13 characters; balanced gives two lines of similar length.
        let long = "the quick brown fox jumps over the lazy dog and runs far away".split(separator: " ").map(String.init)
        let balanced = CueBuilder.breakLines(long, maxLineLength: 42)
        #expect(balanced.count == 2)
        #expect(balanced.joined(separator: " ") == long.joined(separator: " "))
        #expect(balanced.allSatisfy { $0.count <= 42 })
        #expect(abs(balanced[0].count - balanced[1].count) <= 8)
        // Equal longest lines: the shorter line goes on top.
        #expect(CueBuilder.breakLines(["aaaa", "bb", "cccc"], maxLineLength: 7) == ["aaaa", "bb cccc"])
        #expect(CueBuilder.breakLines(["go"], maxLineLength: 42) == ["go"])
        #expect(CueBuilder.breakLines([], maxLineLength: 42) == [])
    }

    @Test("a word longer than a line is kept whole on a line of its own")
    func overlongWord() {
        let url = "https://example.com/a/very/long/path/that/never/ends"
        #expect(CueBuilder.breakLines(["see", url, "now"], maxLineLength: 20) == ["see", url, "now"])
        var builder = CueBuilder(rules: CueRules(maxLineLength: 20, maxLines: 2))
        let cues = builder.cues(for: final([Word(word: "see", start: 0, end: 0.3), Word(word: url, start: 0.4, end: 1.5),
                                            Word(word: "now", start: 1.6, end: 1.9)]))
        #expect(cues.map(\.lines) == [["see", url], ["now"]])
    }

    // MARK: Chinese and Japanese

    @Test("Chinese breaks between characters, never before closing punctuation, with no spaces added")
    func chineseLines() {
        // Whisper's words for a packed Mandarin window: one per sentence (no spaces in Hanzi).
        let sentences = ["我想买一杯咖啡。", "这个东西多少钱？", "我们明天再见。", "今天天气很好。"]
        let lines = CueBuilder.breakLines(sentences, maxLineLength: 42)
        // 30 characters, 60 columns: two lines of at most 21 characters (42 columns), no space anywhere.
        #expect(lines.count == 2)
        #expect(lines.joined() == sentences.joined())
        #expect(lines.allSatisfy { !$0.contains(" ") && TerminalWidth.columns($0) <= 42 })
        #expect(lines.allSatisfy { !"。，？、".contains($0.first!) }, "\(lines)")
        // Two pieces of Chinese meet without a space (before: "我想买一杯咖啡。 这个").
        #expect(CueBuilder.breakLines(["我想买一杯咖啡。", "这个"], maxLineLength: 42) == ["我想买一杯咖啡。这个"])
        // A full stop stays with the character before it; an opening bracket with the one after it.
        #expect(CueBuilder.breakLines(["他说「你好」。再见"], maxLineLength: 10) == ["他说「你", "好」。再见"])
        #expect(CueBuilder.breakLines(["ab「你好"], maxLineLength: 4) == ["ab", "「你", "好"])
    }

    @Test("caption units: Hanzi and kana one by one, Latin words whole, spaces only where they were")
    func captionUnits() {
        let units = CaptionUnits.units(of: ["我有iPhone手机。", "ok", "東京タワーへ", "서울에 갑니다"])
        #expect(units.map { $0.map(\.text) } == [["我", "有", "iPhone", "手", "机。"], ["ok"], ["東", "京", "タ", "ワー", "へ"],
                                                ["서울에", "갑니다"]])
        #expect(units.map { $0.map(\.joinsPrevious) } == [[false, true, true, true, true], [false],
                                                         [false, true, true, true, true], [false, false]])
        #expect(CaptionUnits.text(of: units.flatMap { $0 }) == "我有iPhone手机。 ok 東京タワーへ 서울에 갑니다")
        // Small kana and the prolonged sound mark stay with the kana before them.
        #expect(CaptionUnits.units(of: ["ちょっとコーヒー"])[0].map(\.text) == ["ちょっ", "と", "コー", "ヒー"])
        #expect(CaptionUnit("好").width == 2 && CaptionUnit("a").width == 1 && CaptionUnit("은").width == 2)
        // Texts of results joined for a transcript, and a result's text from its words alone (caption files, the
        // live line, a voice capture's transcript).
        #expect(CaptionUnits.joined(["Hello there.", "", "How are you?"]) == "Hello there. How are you?")
        #expect(CaptionUnits.joined(["我想买咖啡。", "多少钱？"]) == "我想买咖啡。多少钱？")
        let wordsOnly = TranscriptUpdate(segment: 1, revision: 1, isFinal: true, start: 0, end: 1, text: "",
                                         words: [Word(word: "我想", start: 0, end: 0.5), Word(word: "买", start: 0.5, end: 1)])
        #expect(CaptionUtterance(wordsOnly, language: "zh").text == "我想买")
    }

    /// Checks that `lines` are exactly the units in order, each line their text with the spaces they had
    /// (`CaptionUnits.text`), the units' breaks falling between lines.
    private func expectLinesAreUnits(_ lines: [String], _ units: [CaptionUnit], sourceLocation: SourceLocation = #_sourceLocation) {
        var next = 0
        for line in lines {
            var built = ""
            var taken: [CaptionUnit] = []
            while next < units.count && built.count < line.count {
                taken.append(units[next])
                built = CaptionUnits.text(of: taken)
                next += 1
            }
            #expect(built == line, "\(lines) from \(units.map(\.text))", sourceLocation: sourceLocation)
        }
        #expect(next == units.count, "\(lines) from \(units.map(\.text))", sourceLocation: sourceLocation)
    }

    @Test("property: mixed Chinese, Japanese, Korean and Latin lines keep the width, the text and the punctuation rules")
    func mixedScriptProperty() {
        var random = CaptionRandom(seed: 0x5A17)
        let pieces = ["我", "们", "天", "气", "好", "。", "，", "？", "」", "「", "東", "京", "ー", "ょ", "カ", "ok", "iPhone", "42",
                      " ", " go", "서울", ",", "(", "’cause"]
        var broken = 0
        for _ in 0..<500 {
            let maxLength = Int.random(in: 8...42, using: &random)
            let words = (0..<Int.random(in: 1...12, using: &random)).map { _ in
                (0..<Int.random(in: 1...12, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            }
            let units = CaptionUnits.glued(CaptionUnits.units(of: words).flatMap { $0 })
            let lines = CueBuilder.breakLines(words, maxLineLength: maxLength)
            expectLinesAreUnits(lines, units)
            // Every character is kept, in order.
            #expect(lines.joined().filter { !$0.isWhitespace } == words.joined().filter { !$0.isWhitespace })
            for line in lines where TerminalWidth.columns(line) > maxLength {
                // Only a unit longer than a line stands alone over the limit.
                #expect(units.contains { $0.text == line }, "\(line) in \(lines)")
            }
            for (line, nextLine) in zip(lines, lines.dropFirst()) {
                let first = nextLine.first!
                let last = line.last!
                #expect(!(CaptionUnits.noBreakBefore.contains(first) && CaptionUnits.isCloseUp(first)), "\(lines)")
                #expect(!(CaptionUnits.noBreakAfter.contains(last) && CaptionUnits.isCloseUp(last)), "\(lines)")
                broken += 1
            }
        }
        #expect(broken > 300)
    }

    @Test("property: Latin text is one unit per word, none joined or glued, so its captions break as before")
    func latinUnchanged() {
        var random = CaptionRandom(seed: 0x1A71)
        let letters = Array("abcdefghijklmnopqrstuvwxyzäé'’-")
        let marks = [",", ".", "?", "!", ";", ":", "(", ")", "[", "]", "%", "\"", "“", "”", "«", "»", "…", ""]
        for _ in 0..<2000 {
            let words = (0..<Int.random(in: 1...15, using: &random)).map { _ in
                let body = String((0..<Int.random(in: 1...10, using: &random)).map { _ in letters.randomElement(using: &random)! })
                return marks.randomElement(using: &random)! + body + marks.randomElement(using: &random)!
            }
            let units = CaptionUnits.units(of: words)
            #expect(units.map { $0.map(\.text) } == words.map { [$0] })
            #expect(units.allSatisfy { $0.allSatisfy { !$0.joinsPrevious } })
            #expect(CaptionUnits.glued(units.flatMap { $0 }) == units.flatMap { $0 }, "\(words)")
            #expect(units.flatMap { $0 }.allSatisfy { $0.width == $0.text.count })
            #expect(CaptionUnits.joined(words) == words.joined(separator: " "))
        }
        // So a Latin line holds its words with single spaces, as before.
        #expect(CueBuilder.breakLines(["I", "said", "’cause", "it", "was", "late"], maxLineLength: 12) == ["I said", "’cause it", "was late"])
    }

    @Test("a word that begins with Chinese punctuation stays with the word before, and their times join")
    func gluedAcrossWords() {
        var builder = CueBuilder(rules: CueRules(maxLineLength: 4, maxLines: 1, minCueSeconds: 0))
        let cues = builder.cues(for: final([Word(word: "我们", start: 0, end: 1), Word(word: "，再见", start: 1, end: 1.6)]))
        // 们 (0.5–1 s) holds the comma (1–1.2 s): never a line or cue that starts with "，".
        #expect(cues == [CaptionCue(start: 0, end: 0.5, lines: ["我"]), CaptionCue(start: 0.5, end: 1.2, lines: ["们，"]),
                         CaptionCue(start: 1.2, end: 1.6, lines: ["再见"])])
        // A space written inside a word stays; between two words of Chinese none is added.
        #expect(CaptionUnits.text(of: CaptionUnits.units(of: ["東京 大阪", "京都"]).flatMap { $0 }) == "東京 大阪京都")
        #expect(CaptionUnits.joined(["東京 大阪", " 京都", "ok"]) == "東京 大阪京都 ok")
    }

    @Test("a long Mandarin sentence from one word makes cues within the limits, timed by character")
    func chineseCues() {
        // One recognizer word of 30 Hanzi over 6 s, as a packed whisper window gives a sentence.
        let sentence = "今天的天气非常好我们一起去公园散步吧然后再去吃午饭好不好呢。"
        var builder = CueBuilder(rules: CueRules(maxLineLength: 20, maxLines: 1, maxCueSeconds: 7, minCueSeconds: 0))
        let cues = builder.cues(for: final([Word(word: sentence, start: 1, end: 7)]))
        // 10 characters (20 columns) a line, one line a cue: 3 cues of 2 s each, in order.
        #expect(cues.map(\.lines) == [["今天的天气非常好我们"], ["一起去公园散步吧然后"], ["再去吃午饭好不好呢。"]])
        #expect(cues.map(\.start) == [1, 3, 5])
        #expect(cues.map(\.end) == [3, 5, 7])
    }

    // MARK: Timing

    @Test("a cue spans its words, splits at maxCueSeconds, and never lasts longer")
    func cueTiming() {
        var builder = CueBuilder(rules: CueRules(maxCueSeconds: 7, minCueSeconds: 1))
        // 20 one-second words: characters would allow 2 lines of 42, time allows 7 s.
        let words = (0..<20).map { Word(word: "w\($0)", start: Double($0), end: Double($0) + 0.9) }
        let cues = builder.cues(for: final(words))
        #expect(cues.map(\.start) == [0, 7, 14])
        #expect(cues.map(\.end) == [6.9, 13.9, 19.9])
        #expect(cues.map { $0.words.count } == [7, 7, 6])
        // One word longer than the limit: cut to the limit.
        var single = CueBuilder(rules: CueRules(maxCueSeconds: 3))
        let long = single.cues(for: final([Word(word: "ummmm", start: 1, end: 10)]))
        #expect(long == [CaptionCue(start: 1, end: 4, lines: ["ummmm"])])
    }

    @Test("short cues are extended to the minimum only into the gap before the next cue")
    func minimumDisplay() {
        var builder = CueBuilder(rules: CueRules(maxLineLength: 21, maxLines: 1, minCueSeconds: 1))
        // Two cues of one line each: the first is 0.3 s long and the next starts 0.5 s later.
        let words = [Word(word: "aaaaaaaaaa", start: 0, end: 0.1), Word(word: "bbbbbbbbbb", start: 0.2, end: 0.3),
                     Word(word: "cccccccccc", start: 0.8, end: 0.9)]
        let cues = builder.cues(for: final(words))
        #expect(cues == [CaptionCue(start: 0, end: 0.8, lines: ["aaaaaaaaaa bbbbbbbbbb"]),
                         CaptionCue(start: 0.8, end: 1.8, lines: ["cccccccccc"])])
        #expect(builder.lastCueEnd == 1.8)
        // The next utterance starts within the last cue's minimum time: it starts when that cue ends.
        let next = builder.cues(for: final([Word(word: "dd", start: 1.5, end: 2.0)], segment: 2))
        #expect(next == [CaptionCue(start: 1.8, end: 2.8, lines: ["dd"])])
        builder.reset()
        #expect(builder.lastCueEnd == 0)
    }

    @Test("degenerate times still make ordered cues at least 1 ms long")
    func degenerateTimes() {
        var builder = CueBuilder(rules: CueRules(maxLineLength: 20, maxLines: 1, minCueSeconds: 0))
        let words = (0..<6).map { Word(word: "word\($0)-long-enough", start: 5, end: 5) }
        let cues = builder.cues(for: final(words))
        #expect(cues.count == 6)
        for (a, b) in zip(cues, cues.dropFirst()) { #expect(a.end <= b.start) }
        #expect(cues.allSatisfy { ms($0.end) - ms($0.start) >= 1 })
        #expect(builder.cues(for: final([Word(word: "x", start: -3, end: .nan)])).count == 1)
    }

    @Test("results without word times are spread over their time by character count")
    func spreadWords() {
        let update = TranscriptUpdate(segment: 1, revision: 1, isFinal: true, start: 10, end: 12, text: "ab  abcdef\tab")
        let words = CueBuilder.timedWords(for: update)
        #expect(words.map(\.word) == ["ab", "abcdef", "ab"])
        #expect(words.map(\.start) == [10, 10.4, 11.6])
        #expect(words.map(\.end) == [10.4, 11.6, 12])
        var builder = CueBuilder()
        #expect(builder.cues(for: update) == [CaptionCue(start: 10, end: 12, lines: ["ab abcdef ab"])])
        // Partials make no cues; empty finals neither.
        var partial = update
        partial.isFinal = false
        #expect(builder.cues(for: partial).isEmpty)
        #expect(builder.cues(for: TranscriptUpdate(segment: 2, revision: 1, isFinal: true, start: 0, end: 1, text: " ")).isEmpty)
    }

    @Test("time stamps in SRT, WebVTT and the live form")
    func timeFormats() {
        #expect(CaptionTime.format(3723.4567, style: .srt) == "01:02:03,457")
        #expect(CaptionTime.format(3723.4567, style: .webVTT) == "01:02:03.457")
        #expect(CaptionTime.format(3723.4567, style: .short) == "1:02:03.45")
        #expect(CaptionTime.format(1.2, style: .short) == "00:01.20")
        #expect(CaptionTime.format(-1, style: .srt) == "00:00:00,000")
    }

    // MARK: Properties

    /// Random utterances: words of 1–15 letters (now and then one far longer than a line), random durations
    /// and gaps (now and then a word longer than a cue may last), some results without word times.
    private static func randomStream(_ random: inout CaptionRandom) -> (rules: CueRules, updates: [TranscriptUpdate]) {
        let maxCue = Double.random(in: 1...20, using: &random)
        let rules = CueRules(maxLineLength: Int.random(in: 20...80, using: &random), maxLines: Int.random(in: 1...3, using: &random),
                             maxCueSeconds: maxCue, minCueSeconds: Double.random(in: 0...min(maxCue, 2), using: &random))
        var time = Double.random(in: 0...3, using: &random)
        var updates: [TranscriptUpdate] = []
        for segment in 0..<Int.random(in: 1...8, using: &random) {
            var words: [Word] = []
            for _ in 0..<Int.random(in: 1...40, using: &random) {
                let length = Int.random(in: 0..<50, using: &random) == 0 ? Int.random(in: 30...90, using: &random)
                    : Int.random(in: 1...15, using: &random)
                let text = String((0..<length).map { _ in "abcdefghijklmnopqrstuvwxyzäé".randomElement(using: &random)! })
                let duration = Int.random(in: 0..<60, using: &random) == 0 ? Double.random(in: 5...25, using: &random)
                    : Double.random(in: 0...2, using: &random)
                words.append(Word(word: text, start: time, end: time + duration))
                time += duration + (Bool.random(using: &random) ? 0 : Double.random(in: 0...1.5, using: &random))
            }
            let start = words[0].start
            let end = words.last!.end
            let withTimes = Int.random(in: 0..<5, using: &random) != 0
            updates.append(TranscriptUpdate(segment: segment, revision: 1, isFinal: true, start: start, end: end,
                                            text: words.map(\.word).joined(separator: " "), words: withTimes ? words : []))
            time += Double.random(in: 0...3, using: &random)
        }
        return (rules, updates)
    }

    @Test("property: cues keep the limits, are ordered, never overlap, and hold every word exactly once")
    func properties() {
        var random = CaptionRandom(seed: 0xCAB7_1045)
        var utterances = 0
        var cueCount = 0
        var overlongSeen = 0
        for _ in 0..<400 {
            let (rules, updates) = Self.randomStream(&random)
            var builder = CueBuilder(rules: rules)
            var previousEnd = 0
            for update in updates {
                utterances += 1
                let cues = builder.cues(for: update)
                cueCount += cues.count
                let input = update.text.split(separator: " ").map(String.init)
                #expect(cues.flatMap(\.words) == input, "every word exactly once, in order")
                let timed = CueBuilder.timedWords(for: update)
                var wordIndex = 0
                for cue in cues {
                    let (start, end) = (ms(cue.start), ms(cue.end))
                    #expect(!cue.lines.isEmpty && cue.lines.count <= rules.maxLines, "\(cue)")
                    for line in cue.lines where line.count > rules.maxLineLength {
                        // The one allowed exception: a single word longer than a line, alone.
                        #expect(!line.contains(" ") && line.count > rules.maxLineLength, "\(line)")
                        overlongSeen += 1
                    }
                    #expect(end > start, "\(cue)")
                    #expect(end - start <= ms(rules.maxCueSeconds), "\(cue) lasts longer than \(rules.maxCueSeconds) s")
                    #expect(start >= previousEnd, "\(cue) overlaps the cue before")
                    // A cue starts at its first word, unless the cue before still shows then.
                    #expect(start == max(ms(timed[wordIndex].start), previousEnd), "\(cue)")
                    previousEnd = end
                    wordIndex += cue.words.count
                }
            }
        }
        #expect(utterances > 1000)
        #expect(cueCount > utterances)
        #expect(overlongSeen > 10)
    }

    @Test("property: lines are balanced — no line break leaves a shorter longest line")
    func balanceProperty() {
        var random = CaptionRandom(seed: 42)
        for _ in 0..<500 {
            let maxLength = Int.random(in: 20...42, using: &random)
            let words = (0..<Int.random(in: 2...14, using: &random)).map { _ in
                String(repeating: "x", count: Int.random(in: 1...12, using: &random))
            }
            let lines = CueBuilder.breakLines(words, maxLineLength: maxLength)
            #expect(lines.joined(separator: " ") == words.joined(separator: " "))
            guard lines.count == 2 else { continue }
            let best = lines.map(\.count).max()!
            for split in 1..<words.count {
                let top = words[..<split].joined(separator: " ").count
                let bottom = words[split...].joined(separator: " ").count
                if top <= maxLength && bottom <= maxLength { #expect(max(top, bottom) >= best) }
            }
        }
    }
}
