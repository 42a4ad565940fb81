import AudioGraphCore
import Foundation

/// A command of the session control protocol: one JSON object a line, `{"command":"NAME"}` (plus `"language"`
/// for `setCaptionLanguage`), as `audiograph run --control FILE` reads them; the terminal keys `t`, `c` and `q`
/// stand for the toggles and `stop`. `SessionCommandRunner` runs them and answers each.
public enum SessionCommand: Sendable, Equatable {
    case startTranscription
    case stopTranscription
    /// Stops the transcription when it runs, else starts it (key `t`).
    case toggleTranscription
    case showCaptions
    case hideCaptions
    /// Hides the captions when they are on, else shows them (key `c`).
    case toggleCaptions
    case setCaptionLanguage(String)
    /// Ends the run: a normal end, not an interruption (key `q`).
    case stop

    /// Every command name the protocol accepts.
    public static let names = ["startTranscription", "stopTranscription", "toggleTranscription", "showCaptions",
                               "hideCaptions", "toggleCaptions", "setCaptionLanguage", "stop"]

    /// The command's name in the protocol.
    public var name: String {
        switch self {
        case .startTranscription: "startTranscription"
        case .stopTranscription: "stopTranscription"
        case .toggleTranscription: "toggleTranscription"
        case .showCaptions: "showCaptions"
        case .hideCaptions: "hideCaptions"
        case .toggleCaptions: "toggleCaptions"
        case .setCaptionLanguage: "setCaptionLanguage"
        case .stop: "stop"
        }
    }

    /// The command named `name`. A `bad_command` error for an unknown name (with a "did you mean" hint among
    /// `names`) and for `setCaptionLanguage` without a language.
    public init(name: String, language: String? = nil) throws(SessionCommandError) {
        switch name {
        case "startTranscription": self = .startTranscription
        case "stopTranscription": self = .stopTranscription
        case "toggleTranscription": self = .toggleTranscription
        case "showCaptions": self = .showCaptions
        case "hideCaptions": self = .hideCaptions
        case "toggleCaptions": self = .toggleCaptions
        case "setCaptionLanguage":
            guard let language else { throw SessionCommandError(command: name, "setCaptionLanguage needs \"language\"") }
            self = .setCaptionLanguage(language)
        case "stop": self = .stop
        default: throw SessionCommandError(command: name, "unknown command" + Suggestions.hint(for: name, in: Self.names))
        }
    }

    /// The command of a JSON line, e.g. `{"command":"setCaptionLanguage","language":"en-US"}`; nil for a blank
    /// line. A `bad_command` error for a line that is not a JSON object with a string `"command"`.
    public static func parse(line: String) throws(SessionCommandError) -> SessionCommand? {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty else { return nil }
        guard let object = (try? JSONParser.parse(trimmed))?.objectValue, let name = object["command"]?.stringValue else {
            throw SessionCommandError(command: nil,
                                      "expected a JSON object like {\"command\":\"startTranscription\"}, got: \(trimmed)")
        }
        return try SessionCommand(name: name, language: object["language"]?.stringValue)
    }

    /// The command of a terminal key (`t`, `c`, `q`); nil for any other key.
    public init?(key: UInt8) {
        switch key {
        case UInt8(ascii: "t"): self = .toggleTranscription
        case UInt8(ascii: "c"): self = .toggleCaptions
        case UInt8(ascii: "q"): self = .stop
        default: return nil
        }
    }

    /// The control whose key sends it (`SessionControls.isShown`); nil for `stop` and the other commands.
    public var keyControl: SessionControlKind? {
        switch self {
        case .toggleTranscription: .transcription
        case .toggleCaptions: .captions
        default: nil
        }
    }
}

/// A command the protocol answers with an error: `{"type":"error","node":"session","command":…,"code":…,
/// "message":…}` (`json`). Codes: `bad_command` (not a command), `control_hidden` (a key whose control the
/// session hides), `control_unavailable` (the control file cannot be read), or the session's own
/// (`TranscriptionSessionError.code`).
public struct SessionCommandError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The command's name, when the line named one.
    public var command: String?
    public var code: String
    public var message: String

    public init(command: String?, _ message: String, code: String = "bad_command") {
        self.command = command
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// The error as the protocol writes it.
    public var json: JSONObject {
        var object = JSONObject([("type", "error"), ("node", "session")])
        if let command { object["command"] = .string(command) }
        object["code"] = .string(code)
        object["message"] = .string(message)
        return object
    }
}
