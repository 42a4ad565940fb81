import Dispatch
import Synchronization

/// A session's transcripts, page by page: a stateful cursor over the store.
///
/// ```swift
/// let request = TranscriptsRequest.Builder()
///     .sessionId("standup-2026-11-29")
///     .limit(50)
///     .store(try SQLiteTranscriptStore(path: path))
///     .build()
/// let page1 = try await request.fetchNext()      // first 50
/// let page2 = try await request.fetchNext()      // next 50, or [] after the last
/// let again = try await request.fetchPrevious()  // page 1 again; [] when already on page 1
/// ```
///
/// - `sessionId` is required: missing or empty fails every fetch with `sessionIdMissing`.
/// - `limit` defaults to 30 and is clamped to 1…1000.
/// - `fetchNext()` gives the next page, or `[]` after the last (and a later call sees transcripts added since);
///   `fetchPrevious()` gives the previous page, or `[]` on page 1 and on a fresh request.
/// - The cursor moves only when a fetch succeeds: after a failure the same fetch can be retried.
/// - A fetch while another is in flight fails with `requestInProgress`; the one in flight completes.
/// - A row that does not parse is skipped (the rest of its page comes back).
/// - The store is the one given to the builder, else `TranscriptStores.current`; with neither, fetches fail
///   with `storeNotOpened`.
///
/// Thread-safe (`Sendable`): the cursor is kept in a `Mutex`; store queries run on a dispatch queue, off the
/// caller's task.
public final class TranscriptsRequest: Sendable {
    public static let defaultLimit = 30
    public static let limitRange = 1...1000

    public struct Builder: Sendable {
        private var sessionId: String?
        private var limit = TranscriptsRequest.defaultLimit
        private var store: (any TranscriptStore)?

        public init() {}

        /// The session whose transcripts to list (required).
        public func sessionId(_ id: String?) -> Builder {
            var copy = self
            copy.sessionId = id
            return copy
        }

        /// Transcripts per page (default 30, clamped to 1…1000).
        public func limit(_ limit: Int) -> Builder {
            var copy = self
            copy.limit = limit
            return copy
        }

        /// The store to read (default: `TranscriptStores.current`).
        public func store(_ store: any TranscriptStore) -> Builder {
            var copy = self
            copy.store = store
            return copy
        }

        public func build() -> TranscriptsRequest {
            TranscriptsRequest(sessionId: sessionId, limit: limit, store: store)
        }
    }

    public let sessionId: String?
    /// Transcripts per page, after clamping.
    public let limit: Int
    private let pager: Pager<TranscriptRecord>

    init(sessionId: String?, limit: Int, store: (any TranscriptStore)?) {
        self.sessionId = sessionId
        self.limit = min(max(limit, Self.limitRange.lowerBound), Self.limitRange.upperBound)
        let session = sessionId ?? ""
        pager = Pager(store: store, limit: self.limit) { store, after, limit throws(TranscriptsError) in
            let rows = try store.transcripts(sessionID: session, after: after, limit: limit)
            return (rows.compactMap { try? TranscriptRecord(row: $0) }, rows.last?.key)
        }
    }

    /// The 1-based number of the page last returned; 0 before the first.
    public var pageNumber: Int { pager.pageNumber }

    /// The next page, or `[]` after the last.
    public func fetchNext() async throws(TranscriptsError) -> [TranscriptRecord] {
        try validate()
        return try await pager.fetch(.next)
    }

    /// The previous page, or `[]` on page 1 and before the first fetch.
    public func fetchPrevious() async throws(TranscriptsError) -> [TranscriptRecord] {
        try validate()
        return try await pager.fetch(.previous)
    }

    private func validate() throws(TranscriptsError) {
        guard let sessionId, !sessionId.isEmpty else { throw .sessionIdMissing }
    }
}

/// The shared engine of the requests: a `TranscriptCursor` in a `Mutex`, and a page query run off the caller's
/// task.
final class Pager<Record: Sendable>: Sendable {
    /// Reads one page: the parsed records and the key of the last raw row (nil when there was none).
    typealias Query = @Sendable (any TranscriptStore, Int64?, Int) throws(TranscriptsError) -> ([Record], Int64?)

    private let store: (any TranscriptStore)?
    private let limit: Int
    private let query: Query
    private let cursor = Mutex(TranscriptCursor())

    init(store: (any TranscriptStore)?, limit: Int, query: @escaping Query) {
        self.store = store
        self.limit = limit
        self.query = query
    }

    var pageNumber: Int { cursor.withLock { $0.pageNumber } }

    func fetch(_ direction: TranscriptCursor.Direction) async throws(TranscriptsError) -> [Record] {
        let after: Int64?
        switch cursor.withLock({ $0.begin(direction) }) {
        case .inProgress: throw .requestInProgress
        case .empty: return []
        case .query(let key): after = key
        }
        guard let store = store ?? TranscriptStores.current else {
            cursor.withLock { $0.failed() }
            throw .storeNotOpened
        }
        let result = await Self.offTask { [query, limit] () throws(TranscriptsError) in
            try Self.page(store, after: after, limit: limit, query: query)
        }
        switch result {
        case .success(let page):
            cursor.withLock { $0.succeeded(lastKey: page.lastKey) }
            return page.records
        case .failure(let error):
            cursor.withLock { $0.failed() }
            throw error
        }
    }

    private struct Page: Sendable {
        var records: [Record]
        var lastKey: Int64?
    }

    /// One page. When every row of a page fails to parse, the page goes on past them, so `[]` keeps meaning
    /// "after the last" (and then the cursor stays where it was).
    private static func page(_ store: any TranscriptStore, after: Int64?, limit: Int, query: Query) throws(TranscriptsError) -> Page {
        var from = after
        while true {
            let (records, lastKey) = try query(store, from, limit)
            guard let lastKey else { return Page(records: [], lastKey: nil) }
            if !records.isEmpty { return Page(records: records, lastKey: lastKey) }
            from = lastKey
        }
    }

    /// Runs a blocking store call on a dispatch queue so it never holds one of the concurrency pool's threads.
    private static func offTask<T: Sendable>(_ body: @escaping @Sendable () throws(TranscriptsError) -> T) async -> Result<T, TranscriptsError> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                do throws(TranscriptsError) {
                    continuation.resume(returning: .success(try body()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
    }
}
