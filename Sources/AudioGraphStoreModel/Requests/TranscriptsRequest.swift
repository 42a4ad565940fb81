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
/// caller's task. `RemoteTranscriptsRequest` (AudioGraphClient) is the same request over HTTP; both conform to
/// `TranscriptsPaging`.
public final class TranscriptsRequest: TranscriptsPaging {
    public static let defaultLimit = 30
    public static let limitRange = 1...1000

    public struct Builder: Sendable {
        private var sessionId: String?
        private var options = PageOptions()

        public init() {}

        /// The session whose transcripts to list (required).
        public func sessionId(_ id: String?) -> Builder { modified(self) { $0.sessionId = id } }

        /// Transcripts per page (default 30, clamped to 1…1000).
        public func limit(_ limit: Int) -> Builder { modified(self) { $0.options.limit = limit } }

        /// The store to read (default: `TranscriptStores.current`).
        public func store(_ store: any TranscriptStore) -> Builder { modified(self) { $0.options.store = store } }

        public func build() -> TranscriptsRequest { TranscriptsRequest(sessionId: sessionId, options: options) }
    }

    public let sessionId: String?
    /// Transcripts per page, after clamping.
    public let limit: Int
    private let pager: PagedRequest<TranscriptRecord>

    init(sessionId: String?, options: PageOptions) {
        self.sessionId = sessionId
        let session = sessionId ?? ""
        pager = PagedRequest(options) { store, after, limit throws(TranscriptsError) in
            let rows = try store.transcripts(sessionID: session, after: after, limit: limit)
            return (rows.compactMap { try? TranscriptRecord(row: $0) }, rows.last?.key)
        }
        limit = pager.limit
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
