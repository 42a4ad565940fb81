import AudioGraphCore
import Testing

/// Terminal columns, as terminals draw text: live captions in Chinese, Japanese or Korean are cut by columns,
/// so a caption line never wraps and breaks the in-place redraw.
@Suite struct TerminalWidthTests {
    @Test func narrowWideAndZeroWidthText() {
        #expect(TerminalWidth.columns("hello world") == 11)
        #expect(TerminalWidth.columns("我想买一杯咖啡") == 14)
        #expect(TerminalWidth.columns("我想買一杯咖啡。") == 16)  // the ideographic full stop is wide too
        #expect(TerminalWidth.columns("こんにちは") == 10)
        #expect(TerminalWidth.columns("カタカナ") == 8)
        #expect(TerminalWidth.columns("안녕하세요") == 10)
        #expect(TerminalWidth.columns("ＡＢＣ") == 6)  // fullwidth forms
        #expect(TerminalWidth.columns("café") == 4)
        #expect(TerminalWidth.columns("cafe\u{301}") == 4)  // e + a combining acute: one column
        #expect(TerminalWidth.columns("a\u{200B}b") == 2)  // a zero-width space takes none
        #expect(TerminalWidth.columns("👍") == 2)
        #expect(TerminalWidth.columns("\u{2764}\u{FE0F}") == 2)  // a heart with emoji presentation
        #expect(TerminalWidth.columns("Привет") == 6)
        #expect(TerminalWidth.columns("") == 0)
    }

    @Test func aCaptionKeepsItsEndAndTheStatusLineItsStartWithinTheWidth() {
        let caption = "今天天气很好。你能在午饭前把报告发给我吗？我们明天再见。"
        let fitted = TerminalWidth.fitted(caption, width: 21)
        // 21 columns: "…" and the last ten Hanzi and fullwidth marks (20 columns); counted in characters, 20 of
        // them would have taken 40.
        #expect(fitted == "…我吗？我们明天再见。", "\(fitted)")
        #expect(TerminalWidth.columns(fitted) == 21)

        let status = "src [####----] 40% 00:12/00:30  level [|||   ]"
        #expect(TerminalWidth.fitted(status, width: 10, keepingStart: true) == "src [####…")
        #expect(TerminalWidth.fitted("short", width: 10) == "short")
        #expect(TerminalWidth.fitted("abcdefghijkl", width: 6) == "…hijkl")
        // An odd width with only wide characters: the column that a half Hanzi would take stays empty.
        #expect(TerminalWidth.fitted("一二三四五六", width: 6) == "…五六")
    }
}
