import AudioGraphCore

/// Live captions for a terminal or a log.
///
/// - `terminal`: the newest partial result is one line at the bottom, rewritten in place (`\r`, then
///   `ESC [2K` to clear the line) on each revision, cut to the terminal's width (its end kept, "…" in front)
///   so it never wraps; a final result is committed as a normal line above it, so finals scroll up.
/// - `plain` (a pipe or a file): only final results, one line each, after their time range:
///   `[00:01.20 → 00:03.40] go forward ten meters`.
///
/// Final lines look the same in both styles. Revisions replace: a partial older than the one shown (same
/// segment, lower or equal revision; an earlier segment; a segment already final) is ignored, and a second
/// final for a segment is too. `hide()` clears the partial line and shows nothing until `show()`
/// (`ControlCommand.hideCaptions` / `.showCaptions`); `clear()` clears the partial line
/// (`.stopTranscription`).
///
/// Output goes to a `TerminalScreen` (the partial is its caption line, so the CLI's messages and status line
/// share the terminal with it cleanly), or, for tests, as raw bytes through a `write` closure (one call per
/// change).
///
/// Confinement: used from one thread at a time (the sink's).
public final class LiveCaptionRenderer {
    public enum Style: Sendable, Equatable {
        /// A terminal `columns` wide.
        case terminal(columns: Int)
        /// Plain lines, finals only.
        case plain
    }

    /// `\r` then "erase the whole line".
    public static let clearLine = TerminalScreen.clearLine

    /// Where the renderer draws.
    private enum Target {
        case bytes((String) -> Void)
        case screen(TerminalScreen, TerminalScreen.Stream)
    }

    public let style: Style
    public private(set) var isHidden = false
    private let target: Target
    private var partial: (speaker: String?, segment: Int, revision: Int, text: String)?
    private var partialOnScreen = false
    private var finalSegments = Set<SpeakerSegment>()

    /// Writes raw bytes: `clearLine` + the partial on each revision, finals as lines.
    public init(style: Style, write: @escaping (String) -> Void) {
        self.style = style
        target = .bytes(write)
    }

    /// Draws on `screen`: the partial as its caption line on `stream` (on a terminal), finals printed above.
    public init(screen: TerminalScreen, stream: TerminalScreen.Stream) {
        style = screen.isTerminal(stream) ? .terminal(columns: screen.columns(stream)) : .plain
        target = .screen(screen, stream)
    }

    /// Shows a partial or commits a final result.
    public func receive(_ update: TranscriptUpdate) {
        if update.isFinal { commit(update) } else { revise(update) }
    }

    /// Clears the partial line and shows nothing until `show()`.
    public func hide() {
        clear()
        isHidden = true
    }

    /// Shows captions again, from the next result on.
    public func show() { isHidden = false }

    /// Clears the partial line (transcription stopped; the partial will never become final).
    public func clear() {
        partial = nil
        erasePartial()
    }

    /// End of stream or stop: clears the partial line, so the terminal is left clean. Idempotent.
    public func finish() { clear() }

    /// The line a final result is committed as (without the newline).
    public static func finalLine(_ update: TranscriptUpdate) -> String {
        "[\(CaptionTime.format(update.start, style: .short)) → \(CaptionTime.format(update.end, style: .short))] "
            + text(of: update)
    }

    /// The text shown: control characters escaped (`TerminalText`), so an engine's text cannot move the cursor
    /// or start an escape sequence.
    static func text(of update: TranscriptUpdate) -> String {
        TerminalText.escape(SpeakerSegment.prefix(update.speaker)
            + (update.text.isEmpty ? CaptionUnits.joined(update.words.map(\.word)) : update.text))
    }

    private func revise(_ update: TranscriptUpdate) {
        guard !finalSegments.contains(SpeakerSegment(update)) else { return }
        // Another speaker's partial replaces the line; one speaker's older revisions never do.
        if let partial, partial.speaker == update.speaker {
            if update.segment < partial.segment { return }
            if update.segment == partial.segment && update.revision <= partial.revision { return }
        }
        let text = Self.text(of: update)
        partial = (update.speaker, update.segment, update.revision, text)
        guard case .terminal = style, !isHidden else { return }
        if text.isEmpty {
            erasePartial()
        } else {
            switch target {
            case .bytes(let write): write(Self.clearLine + fitted(text))
            case .screen(let screen, let stream): screen.set(.caption, fitted(text), on: stream)
            }
            partialOnScreen = true
        }
    }

    private func commit(_ update: TranscriptUpdate) {
        guard finalSegments.insert(SpeakerSegment(update)).inserted else { return }
        if let current = partial, current.speaker == update.speaker, current.segment <= update.segment { partial = nil }
        let text = Self.text(of: update)
        if isHidden || text.isEmpty {
            if partial == nil { erasePartial() }
            return
        }
        let line = Self.finalLine(update) + "\n"
        let wasOnScreen = partialOnScreen
        var next: String?
        if case .terminal = style, let partial, !partial.text.isEmpty {
            // A newer segment's partial was on screen: put it back under the committed line.
            next = fitted(partial.text)
        }
        partialOnScreen = next != nil
        switch target {
        case .bytes(let write): write((wasOnScreen ? Self.clearLine : "") + line + (next ?? ""))
        case .screen(let screen, let stream) where wasOnScreen || next != nil:
            screen.print(line, to: stream, thenSet: .caption, next)
        case .screen(let screen, let stream): screen.print(line, to: stream)
        }
    }

    private func erasePartial() {
        guard partialOnScreen else { return }
        partialOnScreen = false
        switch target {
        case .bytes(let write): write(Self.clearLine)
        case .screen(let screen, let stream): screen.set(.caption, nil, on: stream)
        }
    }

    /// The partial cut to the terminal's width in columns, keeping its end (the newest words).
    private func fitted(_ text: String) -> String {
        guard case .terminal(let columns) = style else { return text }
        // The last column would wrap on some terminals; a Hanzi takes two columns (`TerminalWidth`).
        return TerminalWidth.fitted(text, width: max(columns - 1, 2))
    }
}
