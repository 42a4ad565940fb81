import Foundation

/// Every failure of the transcript store, of `TranscriptsRequest` / `CallLogsRequest` and of the remote client
/// (`RemoteTranscriptsRequest` in AudioGraphClient): one enum with stable `code` strings (what scripts and the
/// HTTP API match on), and text for people.
public enum TranscriptsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No store to read: the request was built without `.store(_:)` and none was bootstrapped
    /// (`TranscriptStores.bootstrap`), or the store was closed.
    case storeNotOpened
    /// `TranscriptsRequest` (or `RemoteTranscriptsRequest`) needs a session id; it was missing or empty. Also
    /// what the remote client reports when the server answers `session_id_missing`.
    case sessionIdMissing
    /// A fetch was asked for while another fetch of the same request was still running. The running one
    /// completes; ask again once it has.
    case requestInProgress
    /// The store cannot be reached or written: the file cannot be opened or created, the disk is full, another
    /// process holds the lock past the busy timeout, … The cursor did not move; the fetch can be retried.
    case storeUnavailable(String)
    /// There is no transcript store at the location: no file there, a file that is not an audiograph store (an
    /// empty file, another program's SQLite database), a PostgreSQL database without audiograph's tables.
    /// Opening for reading (or without `create`) reports it and leaves whatever is there unchanged.
    case noStore(String)
    /// The store holds something it cannot read: not a database, a damaged file, a schema newer than this
    /// version knows. (A single row that fails to parse is skipped instead.)
    case malformedData(String)
    /// No client to ask: the remote request was built without `.client(_:)` and none was bootstrapped
    /// (`TranscriptsClients.bootstrap`). Nothing was sent.
    case clientNotInitialized
    /// The remote client has no bearer token (nil or empty), so nothing was sent; or the server answered
    /// `missing_token` (the request reached it without an `Authorization: Bearer` header).
    case noAuthToken
    /// The server cannot be reached: connection refused, host not found, timed out, connection lost. The detail
    /// says which. The cursor did not move; the fetch can be retried.
    case networkUnavailable(String)
    /// The server answered something that is not the documented API: a success whose body is not the page
    /// JSON, or an error status without the error JSON. The detail says what was wrong. The cursor did not move.
    case malformedResponse(String)
    /// The server answered an error with the documented error JSON (`{"error":{"code","message"}}`): its HTTP
    /// status, its own stable code (`not_found`, `invalid_token`, `bad_parameter`, `store_unavailable`, …) and
    /// message. `code` is the server's code. (`session_id_missing` and `missing_token` come back as
    /// `sessionIdMissing` and `noAuthToken` instead.)
    case server(status: Int, code: String, message: String)

    /// The stable code: `store_not_opened`, `session_id_missing`, `request_in_progress`, `store_unavailable`,
    /// `malformed_data`, `client_not_initialized`, `no_auth_token`, `network_unavailable`,
    /// `malformed_response`, or for `server` the server's own code.
    public var code: String {
        switch self {
        case .storeNotOpened: return "store_not_opened"
        case .sessionIdMissing: return "session_id_missing"
        case .requestInProgress: return "request_in_progress"
        case .storeUnavailable: return "store_unavailable"
        case .noStore: return "no_store"
        case .malformedData: return "malformed_data"
        case .clientNotInitialized: return "client_not_initialized"
        case .noAuthToken: return "no_auth_token"
        case .networkUnavailable: return "network_unavailable"
        case .malformedResponse: return "malformed_response"
        case .server(_, let code, _): return code
        }
    }

    public var message: String {
        switch self {
        case .storeNotOpened: return "the transcript store is not open"
        case .sessionIdMissing: return "a session id is required"
        case .requestInProgress: return "a fetch of this request is already in progress"
        case .storeUnavailable(let detail): return "the transcript store is unavailable: \(detail)"
        case .noStore(let detail): return "no transcript store: \(detail)"
        case .malformedData(let detail): return "the transcript store holds malformed data: \(detail)"
        case .clientNotInitialized: return "no transcripts client: give one to the request or bootstrap one"
        case .noAuthToken: return "an auth token is required"
        case .networkUnavailable(let detail): return "the server cannot be reached: \(detail)"
        case .malformedResponse(let detail): return "the server's answer is malformed: \(detail)"
        case .server(let status, _, let message): return "the server answered \(status): \(message)"
        }
    }

    public var description: String { "\(code): \(message)" }
}

/// `localizedDescription` gives the message (with its code), not "The operation could not be completed".
extension TranscriptsError: LocalizedError {
    public var errorDescription: String? { description }
}
