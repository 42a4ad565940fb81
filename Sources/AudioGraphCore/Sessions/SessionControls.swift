import Foundation

/// A control of a live session that the config may hide, as the calls SDK hides its buttons
/// (`hideTranscriptionButton`, `hideClosedCaptionButton`).
public enum SessionControlKind: String, Sendable, CaseIterable {
    /// "Start Transcription" / "Stop Transcription" (terminal key `t`).
    case transcription
    /// "Show Captions" / "Hide Captions" (terminal key `c`).
    case captions
    /// The caption-language picker; shown and hidden with the captions control.
    case language

    /// The session setting that hides it.
    public var setting: String {
        switch self {
        case .transcription: return "session.hideTranscriptionButton"
        case .captions, .language: return "session.hideClosedCaptionButton"
        }
    }
}

/// Why a hidden control was refused. The code is stable: `control_hidden`.
public struct SessionControlHidden: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    public let control: SessionControlKind
    public init(control: SessionControlKind) { self.control = control }
    public var code: String { "control_hidden" }
    public var description: String { "the \(control.rawValue) control is hidden for this session (\(control.setting) is true)" }
    public var errorDescription: String? { description }
}

/// Which controls of a session are shown, from its settings. The terminal, the web page and the HTTP API all
/// ask this one place, so a hidden control cannot be used through any of them.
public struct SessionControls: Sendable, Equatable {
    public var transcriptionShown: Bool
    public var captionsShown: Bool

    public init(settings: SessionSettings) {
        transcriptionShown = !settings.hideTranscriptionButton
        captionsShown = !settings.hideClosedCaptionButton
    }

    public func isShown(_ control: SessionControlKind) -> Bool {
        switch control {
        case .transcription: return transcriptionShown
        case .captions, .language: return captionsShown
        }
    }

    /// Throws `SessionControlHidden` when `control` is hidden.
    public func check(_ control: SessionControlKind) throws(SessionControlHidden) {
        guard isShown(control) else { throw SessionControlHidden(control: control) }
    }

    /// The terminal's key help: the live keys, and which keys are off and why, e.g.
    /// `keys: t transcription, c captions, q stop` or
    /// `keys: q stop (t off: session.hideTranscriptionButton is true; c off: session.hideClosedCaptionButton is true)`.
    public var terminalKeyHelp: String {
        var live: [String] = []
        var off: [String] = []
        if transcriptionShown { live.append("t transcription") } else { off.append("t off: session.hideTranscriptionButton is true") }
        if captionsShown { live.append("c captions") } else { off.append("c off: session.hideClosedCaptionButton is true") }
        live.append("q stop")
        return "keys: " + live.joined(separator: ", ") + (off.isEmpty ? "" : " (" + off.joined(separator: "; ") + ")")
    }
}
