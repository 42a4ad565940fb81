import Foundation

/// A piece of caption text a line never breaks inside, and how it joins the piece before it.
///
/// In scripts written with spaces a unit is a word. Chinese and Japanese are written without spaces and a
/// line may break between almost any two characters, so there each Hanzi or kana is a unit of its own, with
/// the punctuation that may not start a line (。、？」, small kana, ー) kept on the character before it and
/// the punctuation that may not end one (「（) on the character after it — the core of the line-breaking rules
/// of Unicode's UAX #14 and of the Japanese kinsoku rules.
public struct CaptionUnit: Sendable, Equatable {
    public var text: String
    /// Written right after the unit before it, without a space between (inside a word, or between two pieces
    /// of Chinese or Japanese).
    public var joinsPrevious: Bool

    public init(_ text: String, joinsPrevious: Bool = false) {
        self.text = text
        self.joinsPrevious = joinsPrevious
    }

    /// The columns the unit takes (`TerminalWidth`): a Hanzi, kana, Hangul syllable or emoji counts two, as it
    /// is about twice as wide as a Latin letter on screen.
    public var width: Int { TerminalWidth.columns(text) }
}

/// Words to caption units (`CaptionUnit`).
public enum CaptionUnits {
    /// The units of each word, in order. A word holding white space is split there first, and its parts keep
    /// their spaces. Two words meet without a space when the first ends and the second starts in Chinese or
    /// Japanese script (a recognizer that cuts a Mandarin transcript into words or sentences wrote none between
    /// them). Text in other scripts gives one unit per word, none joined: Latin captions break as they always did.
    public static func units(of words: [String]) -> [[CaptionUnit]] {
        var previousLast: Character?
        return words.map { word in
            var units: [CaptionUnit] = []
            for part in word.split(whereSeparator: \.isWhitespace) {
                for piece in pieces(of: part) {
                    // Inside a run without spaces every piece joins the one before it; a word's first piece
                    // joins the word before only between Chinese or Japanese; after a space inside a word, never.
                    let joins: Bool
                    if piece.startIndex != part.startIndex {
                        joins = true
                    } else {
                        joins = units.isEmpty && closesUp(previousLast, piece.first!)
                    }
                    units.append(CaptionUnit(String(piece), joinsPrevious: joins))
                    previousLast = piece.last
                }
            }
            return units
        }
    }

    /// The same units with each one a line may not start with (or the one before may not end a line at)
    /// joined to the one before it, with its space if it had one: a recognizer's next word can begin with
    /// "，" or "」".
    public static func glued(_ units: [CaptionUnit]) -> [CaptionUnit] {
        glue(units, unit: { $0 }, merge: { $0.text = text(of: [$0, $1]) })
    }

    /// `glued` for items that carry a unit (a timed word): `merge` folds an item into the one before it.
    static func glue<Item>(_ items: [Item], unit: (Item) -> CaptionUnit, merge: (inout Item, Item) -> Void) -> [Item] {
        var out: [Item] = []
        for item in items {
            if let last = out.last, !mayBreak(between: unit(last), and: unit(item)) {
                merge(&out[out.count - 1], item)
            } else {
                out.append(item)
            }
        }
        return out
    }

    /// Whether a line may break between two units that follow each other. Not before a character that may not
    /// start a line, nor after one that may not end it; across a space, only where that character is Chinese or
    /// Japanese punctuation ("「 ok" and "ok ，" stay together, "( ok" and "ok ." break at the space as before).
    public static func mayBreak(between before: CaptionUnit, and after: CaptionUnit) -> Bool {
        guard let last = before.text.last, let first = after.text.first else { return true }
        let holdsFirst = noBreakBefore.contains(first) && (after.joinsPrevious || isCloseUp(first))
        let holdsLast = noBreakAfter.contains(last) && (after.joinsPrevious || isCloseUp(last))
        return !holdsFirst && !holdsLast
    }

    /// Texts (words, sentences) put one after another: each as it is, trimmed, with a space between two unless
    /// one ends and the next starts in Chinese or Japanese ("Hello there." + "How are you?", but "我想买咖啡。" +
    /// "多少钱？" without one). Empty texts are left out.
    public static func joined(_ texts: [String]) -> String {
        var result = ""
        for text in texts {
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard let first = trimmed.first else { continue }
            if !result.isEmpty && !closesUp(result.last, first) { result += " " }
            result += trimmed
        }
        return result
    }

    /// The text of units: each after the one before it, with a space unless it joins it.
    public static func text<S: Sequence>(of units: S) -> String where S.Element == CaptionUnit {
        var text = ""
        for unit in units {
            if !text.isEmpty && !unit.joinsPrevious { text += " " }
            text += unit.text
        }
        return text
    }

    /// Whether two pieces meet without a space: both sides in a script written without spaces.
    private static func closesUp(_ before: Character?, _ after: Character) -> Bool {
        guard let before else { return false }
        return isCloseUp(before) && isCloseUp(after)
    }

    /// A run of text without white space, cut where a line may break: next to each Hanzi or kana, except before
    /// a character that may not start a line and after one that may not end it.
    static func pieces(of text: Substring) -> [Substring] {
        var pieces: [Substring] = []
        var start = text.startIndex
        var previous: Character?
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if let before = previous, breaks(between: before, and: character) {
                pieces.append(text[start..<index])
                start = index
            }
            previous = character
            index = text.index(after: index)
        }
        if start < text.endIndex { pieces.append(text[start...]) }
        return pieces
    }

    /// A line may break between these two characters of one word.
    static func breaks(between before: Character, and after: Character) -> Bool {
        (isCloseUp(before) || isCloseUp(after)) && !noBreakBefore.contains(after) && !noBreakAfter.contains(before)
    }

    /// Chinese and Japanese: Han ideographs, kana, bopomofo, CJK punctuation and full-width forms. Not Hangul:
    /// Korean is written with spaces between words.
    public static func isCloseUp(_ character: Character) -> Bool {
        guard let value = character.unicodeScalars.first?.value else { return false }
        return closeUpRanges.contains { $0.contains(value) }
    }

    private static let closeUpRanges: [ClosedRange<UInt32>] = [
        0x2E80...0x2FDF,  // CJK radicals, Kangxi radicals
        0x3000...0x303F,  // CJK symbols and punctuation
        0x3040...0x30FF,  // hiragana, katakana
        0x3100...0x312F, 0x31A0...0x31BF,  // bopomofo
        0x31F0...0x31FF,  // katakana phonetic extensions
        0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,  // Han
        0xFE30...0xFE4F,  // CJK compatibility forms
        0xFF00...0xFF9F, 0xFFE0...0xFFEF,  // full-width forms, half-width kana and punctuation (not half-width Hangul)
        0x20000...0x3FFFD,  // Han, supplementary planes
    ]

    /// Characters that may not start a line: closing punctuation, marks that follow a word, small kana, the
    /// prolonged sound mark and iteration marks.
    static let noBreakBefore: Set<Character> = Set(
        "、。，．・：；？！゛゜ヽヾゝゞ々〻ー〜～…‥」』）〕］｝〉》〙〗】〟’”｠»｡､｣･ｰｧｨｩｪｫｬｭｮｯ" +
        "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶㇰㇱㇲㇳㇴㇵㇶㇷㇸㇹㇺㇻㇼㇽㇾㇿ" +
        ",.;:!?)]}%")

    /// Characters that may not end a line: opening punctuation.
    static let noBreakAfter: Set<Character> = Set("「『（〔［｛〈《〘〖【〝‘“｟«｢([{")
}
