import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one writer of a process's stdout and stderr, so that everything sharing a terminal stays readable.
///
/// Printed text (messages, warnings, acknowledgements, final captions) scrolls up as usual. Below it sit up
/// to two live lines, rewritten in place: the partial caption line (`LiveLine.caption`) and under it the
/// status line (`LiveLine.status`: progress, level). Before printed text reaches a terminal that shows live
/// lines, they are erased; after it they are drawn again, so nothing is glued onto a partial and no stale
/// partial stays. stdout and stderr count as one screen when both are the same terminal (the usual case:
/// captions on stdout, status on stderr).
///
/// - Live lines are shown only on a terminal, one row each: control characters are escaped
///   (`TerminalText`) and the text is cut to the terminal's width (a caption keeps its end, the newest words;
///   the status line its start), so it never wraps and erasing stays exact.
/// - Printed text is written as given: the caller escapes what came from outside (`TerminalText`), as the
///   CLI's `printError` does. Every change is one `write(2)` under a lock (no user-space buffer, no
///   interleaving between threads); failures (a closed pipe) are ignored.
///
/// Thread-safe.
public final class TerminalScreen: Sendable {
    public enum Stream: Int, Sendable, CaseIterable {
        case standardOutput, standardError
    }

    /// A line rewritten in place at the bottom of the screen, in this order from the top.
    public enum LiveLine: Int, Sendable, CaseIterable {
        /// The newest partial caption.
        case caption
        /// The progress and level of a run.
        case status
    }

    /// The process's stdout and stderr.
    public static let shared = TerminalScreen(standardOutput: 1, standardError: 2)

    /// `\r` then "erase the whole line".
    public static let clearLine = "\r\u{1B}[2K"
    /// Cursor up one row, then "erase the whole line".
    static let clearLineAbove = "\u{1B}[A\u{1B}[2K"

    private let descriptors: [Int32]
    private let terminals: [Bool]
    /// Both streams are the same terminal.
    private let oneScreen: Bool
    private let live = Mutex<[LiveLine: (stream: Stream, text: String)]>([:])

    /// A screen over two descriptors (tests pass a pseudo-terminal's).
    public init(standardOutput: Int32, standardError: Int32) {
        descriptors = [standardOutput, standardError]
        terminals = descriptors.map { isatty($0) == 1 }
        var out = stat()
        var err = stat()
        oneScreen = terminals.allSatisfy { $0 } && fstat(standardOutput, &out) == 0 && fstat(standardError, &err) == 0
            && out.st_rdev == err.st_rdev
    }

    /// Whether `stream` is a terminal (live lines show only there).
    public func isTerminal(_ stream: Stream) -> Bool { terminals[stream.rawValue] }

    /// The width of `stream`'s terminal in columns: the terminal's own, else `COLUMNS`, else 80.
    public func columns(_ stream: Stream) -> Int {
        var size = winsize()
        if ioctl(descriptors[stream.rawValue], UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = getenv("COLUMNS").map({ String(cString: $0) }), let value = Int(text), value > 0 { return value }
        return 80
    }

    /// Whether a live line is on `stream`'s screen now.
    public func showsLiveLines(on stream: Stream) -> Bool {
        live.withLock { lines in !region(of: stream, in: lines).isEmpty }
    }

    /// Prints `text` on `stream`, above the live lines of its screen. Text that does not end a line gets a
    /// line break when live lines follow it.
    public func print(_ text: String, to stream: Stream) {
        update(printing: text, to: stream, setting: nil)
    }

    /// Sets (or, with nil or an empty text, removes) a live line shown on `stream`. Ignored when `stream` is
    /// not a terminal.
    public func set(_ line: LiveLine, _ text: String?, on stream: Stream) {
        update(printing: nil, to: stream, setting: (line, text))
    }

    /// Prints `text` on `stream` and sets a live line, in one write (a final caption and the next partial).
    public func print(_ text: String, to stream: Stream, thenSet line: LiveLine, _ lineText: String?) {
        update(printing: text, to: stream, setting: (line, lineText))
    }

    private func update(printing text: String?, to stream: Stream, setting change: (line: LiveLine, text: String?)?) {
        live.withLock { lines in
            let before = region(of: stream, in: lines)
            if let change {
                if let value = change.text, !value.isEmpty, isTerminal(stream) {
                    lines[change.line] = (stream, value)
                } else {
                    lines[change.line] = nil
                }
            }
            let after = region(of: stream, in: lines)
            var out = ""
            if !before.isEmpty { out += Self.clearLine + String(repeating: Self.clearLineAbove, count: before.count - 1) }
            if let text {
                out += text
                if !after.isEmpty && !text.isEmpty && !text.hasSuffix("\n") { out += "\n" }
            }
            if !after.isEmpty {
                let width = max(columns(stream) - 1, 2)  // the last column would wrap on some terminals
                out += after.map { Self.fitted($0.line, TerminalText.escape($0.text), width: width) }.joined(separator: "\n")
            }
            guard !out.isEmpty else { return }
            Self.writeAll(out, to: descriptors[stream.rawValue])
        }
    }

    /// The live lines on the screen `stream` writes to, top to bottom.
    private func region(of stream: Stream, in lines: [LiveLine: (stream: Stream, text: String)]) -> [(line: LiveLine, text: String)] {
        guard isTerminal(stream) else { return [] }
        return LiveLine.allCases.compactMap { line in
            guard let shown = lines[line], shown.stream == stream || oneScreen else { return nil }
            return (line, shown.text)
        }
    }

    /// `text` cut to `width` terminal columns (`TerminalWidth`: a Hanzi takes two): a caption keeps its end, the
    /// status line its start.
    static func fitted(_ line: LiveLine, _ text: String, width: Int) -> String {
        TerminalWidth.fitted(text, width: width, keepingStart: line == .status)
    }

    private static func writeAll(_ text: String, to descriptor: Int32) {
        let bytes = Array(text.utf8)
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { raw in write(descriptor, raw.baseAddress! + done, raw.count - done) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            done += written
        }
    }
}
