/// How many terminal columns text takes, as terminals draw it (the rules of `wcwidth`, without depending on the
/// process's locale): East Asian wide and fullwidth characters (Hanzi, kana, Hangul, fullwidth forms) and
/// emoji take two columns, combining marks and zero-width characters none, everything else one. Live captions
/// and the status line are cut to the terminal's width by this count: a Chinese or Japanese caption counted in
/// characters would be twice as wide as the terminal, wrap, and break the in-place redraw.
public enum TerminalWidth {
    /// The columns `text` takes.
    public static func columns(_ text: String) -> Int {
        text.reduce(0) { $0 + columns(of: $1) }
    }

    /// The columns one character (a grapheme cluster) takes: 2 when any of its scalars is wide (an emoji
    /// sequence draws as one wide glyph), else its first scalar's.
    public static func columns(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        guard let first = scalars.first else { return 0 }
        // A wide scalar anywhere (Hangul jamo, an emoji sequence) or emoji presentation (U+FE0F) draws wide.
        if scalars.contains(where: { $0.value == 0xFE0F || columns(of: $0) == 2 }) { return 2 }
        return columns(of: first)
    }

    /// One scalar's columns.
    public static func columns(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value == 0 { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and final consonants
        return wideRanges.contains { $0.contains(value) } ? 2 : 1
    }

    /// The East Asian Wide (W) and Fullwidth (F) blocks, and the emoji blocks terminals draw two columns wide.
    private static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0, 0x23F3...0x23F3,
        0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F, 0x2693...0x2693, 0x26A1...0x26A1,
        0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5, 0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA,
        0x26F2...0x26F3, 0x26F5...0x26F5, 0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B,
        0x2728...0x2728, 0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF, 0xA960...0xA97F,
        0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F, 0xFF00...0xFF60, 0xFFE0...0xFFE6,
        0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF, 0x1F004...0x1F004, 0x1F0CF...0x1F0CF,
        0x1F18E...0x1F18E, 0x1F1E6...0x1F1FF, 0x1F191...0x1F19A, 0x1F200...0x1F251, 0x1F300...0x1F64F, 0x1F680...0x1F6FF,
        0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD, 0x30000...0x3FFFD,
    ]

    /// The longest end of `text` that fits in `width` columns.
    public static func suffix(_ text: String, fitting width: Int) -> String {
        var used = 0
        var start = text.endIndex
        while start > text.startIndex {
            let previous = text.index(before: start)
            let next = columns(of: text[previous])
            guard used + next <= width else { break }
            used += next
            start = previous
        }
        return String(text[start...])
    }

    /// The longest start of `text` that fits in `width` columns.
    public static func prefix(_ text: String, fitting width: Int) -> String {
        var used = 0
        var end = text.startIndex
        while end < text.endIndex {
            let next = columns(of: text[end])
            guard used + next <= width else { break }
            used += next
            end = text.index(after: end)
        }
        return String(text[..<end])
    }

    /// `text` in `width` columns: as it is when it fits, else its end after "…" (a caption keeps its newest
    /// words) or, with `keepingStart`, its start before "…" (a status line).
    public static func fitted(_ text: String, width: Int, keepingStart: Bool = false) -> String {
        guard columns(text) > width else { return text }
        return keepingStart ? prefix(text, fitting: width - 1) + "…" : "…" + suffix(text, fitting: width - 1)
    }
}
