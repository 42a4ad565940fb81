import AudioGraphCore
import AudioGraphStore

/// The control API of a live session (docs/http-api.md, "Steering a live session"):
/// `POST /v1/sessions/{id}/transcription` `{"action":"start"|"stop"}`, `…/captions` `{"visible":true|false}`,
/// `…/language` `{"language":"de-DE"}`. Every participant of the run may steer it, as far as its
/// `hideTranscriptionButton` / `hideClosedCaptionButton` settings show the control.
///
/// Requests from a browser are CSRF-safe: the token is read from the `Authorization` header only (never a
/// cookie or the query), and a body must be `Content-Type: application/json`, which a cross-site form cannot
/// send; a cross-site script cannot send either without a CORS preflight, which this server never grants.
enum ControlAPI {
    /// The control names of the route's last segment.
    static let routes = ["transcription", "captions", "language"]

    /// Reads the command of `route` from `request`'s body; refuses what is not exactly the documented JSON.
    static func command(route: String, request: HTTPRequest) throws(APIError) -> LiveSessionCommand {
        if request.bodyTooLarge {
            throw APIError(status: 413, code: "body_too_large", message: "a control body is at most \(HTTPRequest.maximumBody) bytes")
        }
        let type = request.headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application/json" else {
            throw APIError(status: 415, code: "unsupported_media_type", message: "a control body must be Content-Type: application/json")
        }
        let object: JSONObject
        do {
            guard let parsed = try JSONParser.parse(String(decoding: request.body, as: UTF8.self)).objectValue else {
                throw APIError.malformedBody("expected a JSON object")
            }
            object = parsed
        } catch let error as APIError {
            throw error
        } catch {
            throw .malformedBody("the body is not JSON: \(error)")
        }
        let field: String
        switch route {
        case "transcription": field = "action"
        case "captions": field = "visible"
        default: field = "language"
        }
        for key in object.keys where key != field {
            throw APIError(status: 400, code: "unknown_field", message: "unknown field \"\(key)\"; this control takes only \"\(field)\"")
        }
        guard let value = object[field] else { throw .malformedBody("missing \"\(field)\"") }
        switch route {
        case "transcription":
            switch value.stringValue {
            case "start"?: return .startTranscription
            case "stop"?: return .stopTranscription
            default: throw .malformedBody("\"action\" must be \"start\" or \"stop\"")
            }
        case "captions":
            guard let visible = value.boolValue else { throw .malformedBody("\"visible\" must be true or false") }
            return visible ? .showCaptions : .hideCaptions
        default:
            guard let code = value.stringValue, !code.isEmpty else { throw .malformedBody("\"language\" must be a language code like \"de-DE\"") }
            return .setCaptionLanguage(code)
        }
    }
}

extension TranscriptsAPI {
    /// `POST /v1/sessions/{id}/{route}`: the session's state after the command.
    func control(_ sessionID: String, route: String, for user: String, request: HTTPRequest,
                 store: any TranscriptStore, live: LiveSessions) throws(APIError) -> HTTPResponse {
        guard !sessionID.trimmingCharacters(in: .whitespaces).isEmpty else { throw .sessionIDMissing }
        guard let session = live.session(id: sessionID, for: user) else {
            // A stored session of theirs that no longer runs: 409; anything else is not theirs to know of.
            let stored: Bool
            do { stored = try store.isParticipant(user, sessionID: sessionID) } catch { throw .storeUnavailable(error.message) }
            if stored { throw Self.notLive }
            throw .notFound("no live session with this id")
        }
        guard let controller = session.controller, !session.isEnded else { throw Self.notLive }
        // A hidden control is refused whatever the body says (the same check runs again in `perform`).
        do {
            try controller.controls.check(SessionControlKind(rawValue: route) ?? .language)
        } catch {
            throw APIError(status: 403, code: error.code, message: error.description)
        }
        let command = try ControlAPI.command(route: route, request: request)
        let state = try controller.perform(command)
        return .json(.object(LiveSessionController.json(state)))
    }

    static let notLive = APIError(status: 409, code: "not_running", message: "the session is not live: nothing to steer")
}
