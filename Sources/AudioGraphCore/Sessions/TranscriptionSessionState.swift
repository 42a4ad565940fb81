import Foundation

/// Why a transcription-session call failed. Codes are stable.
/// As a `LocalizedError`, `localizedDescription` is `description`.
public enum TranscriptionSessionError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// The graph has no recognizer.
    case noTranscriber
    /// The recognizer engine cannot do this language (with what would make it possible, when the engine knows).
    case unsupportedLanguage(code: String, engine: String, supported: [String], hint: String? = nil)
    /// The graph has finished (or was never started): nothing to steer.
    case notRunning

    public var code: String {
        switch self {
        case .noTranscriber: return "no_transcriber"
        case .unsupportedLanguage: return "unsupported_language"
        case .notRunning: return "not_running"
        }
    }

    public var description: String {
        switch self {
        case .noTranscriber: return "the graph has no recognizer"
        case .unsupportedLanguage(let code, let engine, let supported, let hint):
            return "recognizer engine \"\(engine)\" cannot do \(code); it has " + supported.joined(separator: ", ")
                + (hint.map { "; " + $0 } ?? "")
        case .notRunning: return "the session is not running"
        }
    }

    public var errorDescription: String? { description }
}

/// A transcription session's switchable state.
public struct TranscriptionSessionState: Sendable, Equatable {
    public var transcribing: Bool
    /// The captions switch ("Show Captions" / "Hide Captions").
    public var captionsOn: Bool
    public var captionLanguage: String
    /// Captions are on screen only while transcription runs and captions are on.
    public var captionsVisible: Bool { transcribing && captionsOn }

    public init(transcribing: Bool, captionsOn: Bool, captionLanguage: String) {
        self.transcribing = transcribing
        self.captionsOn = captionsOn
        self.captionLanguage = captionLanguage
    }
}
