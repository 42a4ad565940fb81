import AudioGraphCore
import Foundation
import AudioGraphTestKit
import Testing

/// Issue 18, "Terminal output": one writer owns the terminal. Checked on a real pseudo-terminal through a
/// model of the screen it shows.
@Suite("TerminalScreen on a pseudo-terminal")
struct TerminalScreenTests {
    private func screen(columns: Int = 40, rows: Int = 8) throws -> (PseudoTerminal, TerminalScreen) {
        let pty = try #require(PseudoTerminal(columns: columns, rows: rows))
        return (pty, TerminalScreen(standardOutput: pty.slave, standardError: pty.slave))
    }

    @Test func messagesGoAboveThePartialAndTheStatusLine() throws {
        let (pty, screen) = try screen(columns: 60)
        #expect(screen.isTerminal(.standardOutput) && screen.isTerminal(.standardError))
        #expect(screen.columns(.standardError) == 60)
        var model = ScreenModel(columns: 60, rows: 8)
        screen.set(.status, "src [####------] 40%", on: .standardError)
        screen.set(.caption, "go forward", on: .standardOutput)
        screen.set(.caption, "go forward ten", on: .standardOutput)
        screen.print("audiograph: session: toggleCaptions\n", to: .standardError)
        screen.print("[00:00.52 → 00:02.90] go forward ten meters\n", to: .standardOutput, thenSet: .caption, "then")
        screen.print("no line break", to: .standardError)
        screen.set(.status, "src [########--] 80%", on: .standardError)
        model.feed(pty.drain())
        #expect(model.text == ["audiograph: session: toggleCaptions", "[00:00.52 → 00:02.90] go forward ten meters",
                               "no line break", "then", "src [########--] 80%"])
        #expect(model.row == 4 && model.column == "src [########--] 80%".count)
        #expect(model.unknown.isEmpty, "\(model.unknown)")
        #expect(screen.showsLiveLines(on: .standardError))

        screen.set(.caption, nil, on: .standardOutput)
        screen.set(.status, "", on: .standardError)
        model.feed(pty.drain())
        #expect(model.text == ["audiograph: session: toggleCaptions", "[00:00.52 → 00:02.90] go forward ten meters",
                               "no line break"])
        #expect(model.row == 3 && model.column == 0)
        #expect(!screen.showsLiveLines(on: .standardOutput))
    }

    @Test func liveLinesFitOneRowAndShowControlCharactersEscaped() throws {
        let (pty, screen) = try screen(columns: 20)
        var model = ScreenModel(columns: 20, rows: 8)
        screen.set(.caption, "one two three four five six", on: .standardOutput)
        screen.set(.status, "a status line longer than twenty", on: .standardError)
        model.feed(pty.drain())
        #expect(model.text == ["…hree four five six", "a status line long…"])
        #expect(model.row == 1, "each live line takes one row")

        screen.set(.caption, "hi\u{1B}[2J\rx", on: .standardOutput)
        model.feed(pty.drain())
        #expect(model.unknown.isEmpty, "\(model.unknown)")
        #expect(model.text == ["hi\\x1B[2J\\rx", "a status line long…"])
    }

    @Test func aPipeGetsTheTextAsGivenAndNoLiveLines() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let screen = TerminalScreen(standardOutput: fds[1], standardError: fds[1])
        #expect(!screen.isTerminal(.standardOutput))
        screen.set(.caption, "partial", on: .standardOutput)
        screen.set(.status, "progress", on: .standardError)
        #expect(!screen.showsLiveLines(on: .standardOutput))
        screen.print("héllo → captions\n", to: .standardOutput)
        screen.print("a\tb", to: .standardError)
        close(fds[1])
        let read = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true).readDataToEndOfFile()
        #expect(String(decoding: read, as: UTF8.self) == "héllo → captions\na\tb")
    }

    @Test func aPipedStdoutLeavesTheStatusLineOnTheTerminalAlone() throws {
        let pty = try #require(PseudoTerminal(columns: 40, rows: 8))
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let screen = TerminalScreen(standardOutput: fds[1], standardError: pty.slave)
        var model = ScreenModel(columns: 40, rows: 8)
        screen.set(.status, "progress", on: .standardError)
        screen.print("[00:01.00 → 00:02.00] a final\n", to: .standardOutput)
        screen.print("audiograph: warning: w\n", to: .standardError)
        close(fds[1])
        let piped = FileHandle(fileDescriptor: fds[0], closeOnDealloc: true).readDataToEndOfFile()
        #expect(String(decoding: piped, as: UTF8.self) == "[00:01.00 → 00:02.00] a final\n")
        model.feed(pty.drain())
        #expect(model.text == ["audiograph: warning: w", "progress"])
    }
}
