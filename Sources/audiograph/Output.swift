import AudioGraphCore
import Foundation
import Synchronization

/// Writes to stdout and stderr from any thread, a line at a time.
enum Console {
    private static let lock = Mutex<Void>(())

    static func writeOut(_ text: String) {
        lock.withLock { _ in write(text, to: 1) }
    }

    static func writeError(_ text: String) {
        lock.withLock { _ in write(text, to: 2) }
    }

    /// Plain write(2): a closed pipe (`audiograph run … | head`) returns EPIPE, which is ignored (SIGPIPE is
    /// ignored in main.swift) so the run still finalizes its outputs.
    private static func write(_ text: String, to descriptor: Int32) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(descriptor, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
        bytes.removeAll()
    }

    static var stderrIsTerminal: Bool { isatty(2) == 1 }
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
