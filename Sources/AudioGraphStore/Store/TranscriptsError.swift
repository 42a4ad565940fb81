/// Every failure of the transcript store and of `TranscriptsRequest` / `CallLogsRequest`: one enum with stable
/// `code` strings (what scripts and the HTTP API match on), and text for people.
public enum TranscriptsError: Error, Equatable, Sendable, CustomStringConvertible {
    /// No store to read: the request was built without `.store(_:)` and none was bootstrapped
    /// (`TranscriptStores.bootstrap`), or the store was closed.
    case storeNotOpened
    /// `TranscriptsRequest` needs a session id; it was missing or empty.
    case sessionIdMissing
    /// A fetch was asked for while another fetch of the same request was still running. The running one
    /// completes; ask again once it has.
    case requestInProgress
    /// The store cannot be reached or written: the file cannot be opened or created, the disk is full, another
    /// process holds the lock past the busy timeout, … The cursor did not move; the fetch can be retried.
    case storeUnavailable(String)
    /// The store holds something it cannot read: not a database, a damaged file, a schema newer than this
    /// version knows. (A single row that fails to parse is skipped instead.)
    case malformedData(String)

    /// The stable code: `store_not_opened`, `session_id_missing`, `request_in_progress`, `store_unavailable`,
    /// `malformed_data`.
    public var code: String {
        switch self {
        case .storeNotOpened: return "store_not_opened"
        case .sessionIdMissing: return "session_id_missing"
        case .requestInProgress: return "request_in_progress"
        case .storeUnavailable: return "store_unavailable"
        case .malformedData: return "malformed_data"
        }
    }

    public var message: String {
        switch self {
        case .storeNotOpened: return "the transcript store is not open"
        case .sessionIdMissing: return "a session id is required"
        case .requestInProgress: return "a fetch of this request is already in progress"
        case .storeUnavailable(let detail): return "the transcript store is unavailable: \(detail)"
        case .malformedData(let detail): return "the transcript store holds malformed data: \(detail)"
        }
    }

    public var description: String { "\(code): \(message)" }
}
