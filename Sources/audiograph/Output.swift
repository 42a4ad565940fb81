import AudioGraph
import Foundation

/// Writes to stdout and stderr from any thread, through `TerminalScreen.shared`, the process's one terminal
/// writer: text printed while live lines (a partial caption, the status line) are on the terminal goes above
/// them, and they are drawn again below it. A closed pipe (`audiograph run … | head`) is ignored (SIGPIPE is
/// ignored in main.swift), so the run still finalizes its outputs.
enum Console {
    static let screen = TerminalScreen.shared

    static func writeOut(_ text: String) { screen.print(text, to: .standardOutput) }

    static func writeError(_ text: String) { screen.print(text, to: .standardError) }

    /// What goes before a message answering Ctrl-C: a line break off the `^C` the terminal echoed, unless live
    /// lines are shown (erasing them before the message removes the echo too).
    static var interruptBreak: String { screen.showsLiveLines(on: .standardError) ? "" : "\n" }

    static var stderrIsTerminal: Bool { screen.isTerminal(.standardError) }

    /// Sets (nil: removes) the status line under the live captions on stderr: progress, level.
    static func setStatus(_ text: String?) { screen.set(.status, text, on: .standardError) }
}

/// A line (or lines) on stderr. Control characters in `text` (from a config, a file name, a store) are shown
/// escaped (`TerminalText`), so none reaches the terminal as an escape sequence; line breaks stay.
func printError(_ text: String) {
    Console.writeError(TerminalText.escape(text, keepingNewlines: true) + "\n")
}

/// A line (or lines) on stdout, control characters escaped as `printError` does. A value that must stay on
/// one line (a session id in a table) is escaped by its caller with `TerminalText.escape` first.
func printOut(_ text: String) {
    Console.writeOut(TerminalText.escape(text, keepingNewlines: true) + "\n")
}
