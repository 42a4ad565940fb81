/// Text from users, files and stores on its way to a terminal: control characters (C0, DEL and C1 — what
/// starts an ANSI escape sequence, moves the cursor or rings the bell) are shown as escapes (`\n`, `\t`,
/// `\r`, `\x1B`), so a session name or a transcript cannot rewrite the screen. Every human-readable output
/// goes through `escape` (the CLI's stdout and stderr lines, live captions); JSON output escapes them itself.
public enum TerminalText {
    /// Whether `scalar` is a control character: U+0000…U+001F, U+007F or U+0080…U+009F.
    public static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
    }

    /// Whether `text` holds any control character (what ids and names must not hold).
    public static func containsControl(_ text: String) -> Bool {
        text.unicodeScalars.contains(where: isControl)
    }

    /// `text` with each control character written as an escape. With `keepingNewlines`, `\n` stays a line
    /// break (for multi-line messages whose lines are each escaped).
    public static func escape(_ text: String, keepingNewlines: Bool = false) -> String {
        guard containsControl(text) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            guard isControl(scalar), !(keepingNewlines && scalar == "\n") else {
                out.append(scalar)
                continue
            }
            let escaped: String
            switch scalar {
            case "\n": escaped = "\\n"
            case "\r": escaped = "\\r"
            case "\t": escaped = "\\t"
            default:
                let hex = String(scalar.value, radix: 16, uppercase: true)
                escaped = "\\x" + (hex.count < 2 ? "0" : "") + hex
            }
            out.append(contentsOf: escaped.unicodeScalars)
        }
        return String(out)
    }
}
