import AudioGraphCore
import Testing

/// Issue 14, item 10 — "Terminal escapes": the one escaping function every human-readable output uses, and
/// the config's refusal of control characters in session ids, rooms and participant names (exit 65 at the
/// JSON path).
struct TerminalTextTests {
    @Test("control characters (C0, DEL, C1) are escaped; other text, tabs aside, is unchanged")
    func escape() {
        #expect(TerminalText.escape("plain ünïcode — ok") == "plain ünïcode — ok")
        #expect(TerminalText.escape("a\u{1B}[31mb\u{7F}c\u{9B}d\u{0}") == "a\\x1B[31mb\\x7Fc\\x9Bd\\x00")
        #expect(TerminalText.escape("one\ntwo\tthree\r") == "one\\ntwo\\tthree\\r")
        #expect(TerminalText.escape("one\ntwo\u{1B}", keepingNewlines: true) == "one\ntwo\\x1B")
        #expect(TerminalText.containsControl("x\u{85}") && !TerminalText.containsControl("x y"))
    }

    @Test("session.id, session.room and session.participants with a control character are config errors",
          arguments: [("id", "\"s\\u001b[2J\""), ("room", "\"r\\u0007\""), ("participants", "[\"alice\", \"bob\\u009b\"]")])
    func refusedInSession(key: String, value: String) {
        let text = "{\"version\": 1, \"session\": {\"\(key)\": \(value)}, \"nodes\": {}}"
        do {
            _ = try ConfigLoader.parse(text, baseDirectory: "/tmp")
            Issue.record("accepted a control character in session.\(key)")
        } catch {
            #expect(error.code == .invalidConfig)
            let expected = key == "participants" ? "session.participants[1]" : "session.\(key)"
            #expect(error.location == expected, "\(error)")
            #expect(!TerminalText.containsControl(error.message), "the message shows it escaped: \(error)")
        }
    }

    @Test("JSON output escapes DEL and C1 too (as \\u escapes, still valid JSON)")
    func jsonEscapes() {
        #expect(JSONWriter.compact(.string("a\u{7F}b\u{9B}c\u{1B}")) == "\"a\\u007fb\\u009bc\\u001b\"")
        // Each one alone is escaped (the writer copies strings that need nothing whole, so each is checked).
        for (scalar, escaped) in [("\u{80}", "\\u0080"), ("\u{9F}", "\\u009f"), ("\u{7F}", "\\u007f"), ("\u{1F}", "\\u001f"),
                                  ("\"", "\\\""), ("\\", "\\\\"), ("\n", "\\n")] {
            #expect(JSONWriter.compact(.string("x\(scalar)y")) == "\"x\(escaped)y\"")
        }
        // Neighbours of C1 in UTF-8 (U+00A0, U+0100, é, ✓, an emoji) are copied as they are.
        let plain = "a\u{A0}b\u{100}c é ✓ 🎙 /slash"
        #expect(JSONWriter.compact(.string(plain)) == "\"" + plain + "\"")
    }
}
