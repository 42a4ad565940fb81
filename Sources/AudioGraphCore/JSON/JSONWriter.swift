/// Serializes `JSONValue`s compactly (one line, for `--events jsonl`) or indented (for humans).
public enum JSONWriter {
    public static func compact(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    /// One line, every number exactly (the shortest text that reads back as the same `Double`): for data that
    /// crosses to other code (the plugin ABI), not for people.
    public static func exact(_ value: JSONValue) -> String {
        String(decoding: bytes(value, exact: true), as: UTF8.self)
    }

    public static func pretty(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        write(value, into: &out, indent: Array("  ".utf8), level: 0)
        return String(decoding: out, as: UTF8.self)
    }

    /// `compact` (or with `exact`, `exact`) as UTF-8 bytes, for answers that go out as bytes (the HTTP API).
    public static func bytes(_ value: JSONValue, exact: Bool = false) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(256)
        write(value, into: &out, indent: nil, level: 0, exact: exact)
        return out
    }

    static func write(_ value: JSONValue, into out: inout [UInt8], indent: [UInt8]?, level: Int, exact: Bool = false) {
        switch value {
        case .null: out.append(contentsOf: "null".utf8)
        case .bool(let b): out.append(contentsOf: (b ? "true" : "false").utf8)
        case .number(let n) where n.rounded() == n && abs(n) < 1e15: appendInteger(Int64(n), to: &out)  // both formats
        case .number(let n): out.append(contentsOf: (exact ? exactFormat(number: n) : format(number: n)).utf8)
        case .string(let s): writeString(s, into: &out)
        case .array(let items):
            if items.isEmpty { out.append(contentsOf: "[]".utf8); return }
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                write(item, into: &out, indent: indent, level: level + 1, exact: exact)
            }
            newline(&out, indent, level)
            out.append(UInt8(ascii: "]"))
        case .object(let object):
            if object.entries.isEmpty { out.append(contentsOf: "{}".utf8); return }
            out.append(UInt8(ascii: "{"))
            for (i, entry) in object.entries.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                newline(&out, indent, level + 1)
                writeString(entry.key, into: &out)
                out.append(UInt8(ascii: ":"))
                if indent != nil { out.append(UInt8(ascii: " ")) }
                write(entry.value, into: &out, indent: indent, level: level + 1, exact: exact)
            }
            newline(&out, indent, level)
            out.append(UInt8(ascii: "}"))
        }
    }

    /// `String(value)`'s digits, without making the string.
    private static func appendInteger(_ value: Int64, to out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)  // up to 20 digits, scratch on the stack
        withUnsafeMutableBytes(of: &digits) { scratch in
            var index = scratch.count
            repeat {
                index -= 1
                scratch[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: scratch[index...])
        }
    }

    private static func newline(_ out: inout [UInt8], _ indent: [UInt8]?, _ level: Int) {
        guard let indent else { return }
        out.append(UInt8(ascii: "\n"))
        for _ in 0..<level { out.append(contentsOf: indent) }
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
        var bytes: [UInt8] = []
        writeString(s, into: &bytes)
        out += String(decoding: bytes, as: UTF8.self)
    }

    static func writeString(_ s: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        guard needsEscaping(s) else {
            out.append(contentsOf: s.utf8)
            out.append(UInt8(ascii: "\""))
            return
        }
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out.append(contentsOf: "\\\"".utf8)
            case "\\": out.append(contentsOf: "\\\\".utf8)
            case "\n": out.append(contentsOf: "\\n".utf8)
            case "\r": out.append(contentsOf: "\\r".utf8)
            case "\t": out.append(contentsOf: "\\t".utf8)
            case _ where TerminalText.isControl(scalar):  // C0 as JSON must; DEL and C1 too, for terminals
                let hex = String(scalar.value, radix: 16)
                out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).utf8)
            default: out.append(contentsOf: String(scalar).utf8)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Whether `s` holds anything `writeString` escapes: `"`, `\\`, C0, DEL or C1 (U+0080…U+009F, in UTF-8
    /// 0xC2 followed by 0x80…0x9F). Most strings hold none and are copied whole.
    private static func needsEscaping(_ s: String) -> Bool {
        func scan(_ bytes: some Sequence<UInt8>) -> Bool {
            var previous: UInt8 = 0
            for byte in bytes {
                if byte < 0x20 || byte == 0x22 || byte == 0x5C || byte == 0x7F || (previous == 0xC2 && byte <= 0x9F) { return true }
                previous = byte
            }
            return false
        }
        return s.utf8.withContiguousStorageIfAvailable { scan($0) } ?? scan(s.utf8)
    }
}
