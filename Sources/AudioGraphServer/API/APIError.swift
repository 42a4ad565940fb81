import AudioGraphCore

/// An error answer of the HTTP API: a status and a stable code (what clients match on), and text for people.
/// Encoded as `{"error":{"code":"…","message":"…"}}` (docs/http-api.md).
public struct APIError: Error, Equatable, Sendable, CustomStringConvertible {
    public var status: Int
    public var code: String
    public var message: String
    /// More fields of the error object (e.g. `supported` for `unsupported_language`).
    public var details: JSONObject

    public init(status: Int, code: String, message: String, details: JSONObject = JSONObject()) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
    }

    public static func badParameter(_ message: String) -> APIError {
        APIError(status: 400, code: "bad_parameter", message: message)
    }

    public static let sessionIDMissing = APIError(status: 400, code: "session_id_missing", message: "a session id is required")
    public static let missingToken = APIError(status: 401, code: "missing_token",
                                              message: "this request needs an Authorization: Bearer token")
    public static let invalidToken = APIError(status: 401, code: "invalid_token", message: "the token is not valid")

    public static func notFound(_ message: String = "not found") -> APIError {
        APIError(status: 404, code: "not_found", message: message)
    }

    public static let methodNotAllowed = APIError(status: 405, code: "method_not_allowed", message: "only GET and HEAD are allowed")
    public static let controlMethodNotAllowed = APIError(status: 405, code: "method_not_allowed",
                                                         message: "a session control takes POST only")

    /// The body is not what the control endpoint takes.
    public static func malformedBody(_ message: String) -> APIError {
        APIError(status: 400, code: "malformed_body", message: message)
    }

    public static func storeUnavailable(_ message: String) -> APIError {
        APIError(status: 503, code: "store_unavailable", message: message)
    }

    public static func internalError(_ message: String) -> APIError {
        APIError(status: 500, code: "internal", message: message)
    }

    public var description: String { "\(status) \(code): \(message)" }
}
