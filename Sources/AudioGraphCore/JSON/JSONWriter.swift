/// Serializes `JSONValue`s compactly (one line, for `--events jsonl`) or indented (for humans).
public enum JSONWriter {
    public static func compact(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: nil, level: 0)
        return out
    }

    /// One line, every number exactly (the shortest text that reads back as the same `Double`): for data that
    /// crosses to other code (the plugin ABI), not for people.
    public static func exact(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: nil, level: 0, exact: true)
        return out
    }

    public static func pretty(_ value: JSONValue) -> String {
        var out = ""
        write(value, into: &out, indent: "  ", level: 0)
        return out
    }

    static func write(_ value: JSONValue, into out: inout String, indent: String?, level: Int, exact: Bool = false) {
        switch value {
        case .null: out += "null"
        case .bool(let b): out += b ? "true" : "false"
        case .number(let n): out += exact ? exactFormat(number: n) : format(number: n)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out += "[]"; return }
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                write(item, into: &out, indent: indent, level: level + 1, exact: exact)
            }
            newline(&out, indent, level)
            out += "]"
        case .object(let object):
            if object.entries.isEmpty { out += "{}"; return }
            out += "{"
            for (i, entry) in object.entries.enumerated() {
                if i > 0 { out += "," }
                newline(&out, indent, level + 1)
                writeString(entry.key, into: &out)
                out += indent == nil ? ":" : ": "
                write(entry.value, into: &out, indent: indent, level: level + 1, exact: exact)
            }
            newline(&out, indent, level)
            out += "}"
        }
    }

    private static func newline(_ out: inout String, _ indent: String?, _ level: Int) {
        guard let indent else { return }
        out += "\n" + String(repeating: indent, count: level)
    }

    /// Integers print without a fraction; other numbers with up to 6 significant decimals.
    public static func format(number n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
        var text = String(n)
        if text.contains("e") { return text }
        // Trim float noise such as 0.30000000000000004 to a readable precision.
        let rounded = (n * 1_000_000).rounded() / 1_000_000
        text = String(rounded)
        return text
    }

    static func exactFormat(number n: Double) -> String {
        guard n.isFinite else { return "null" }
        if n.rounded() == n, abs(n) < 1e15 { return String(Int64(n)) }
        return String(n)  // Swift prints the shortest representation that round-trips
    }

    static func writeString(_ s: String, into out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where TerminalText.isControl(scalar):  // C0 as JSON must; DEL and C1 too, for terminals
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
