/// Sessions (one per run), page by page, oldest first: the same cursor rules as `TranscriptsRequest`
/// (`fetchNext` / `fetchPrevious`, moves only on success, `requestInProgress` while a fetch runs), over the
/// sessions' keys.
///
/// `hasTranscriptions(true)` lists only sessions that had transcription, each with its transcripts attached;
/// `false` or unset lists every session, with `transcripts` empty.
///
/// ```swift
/// let calls = CallLogsRequest.Builder().hasTranscriptions(true).store(store).build()
/// for call in try await calls.fetchNext() { print(call.mid, call.transcripts.count) }
/// ```
public final class CallLogsRequest: Sendable {
    public struct Builder: Sendable {
        private var hasTranscriptions: Bool?
        private var options = PageOptions()

        public init() {}

        /// true: only transcribed sessions, with their transcripts; false or unset: every session.
        public func hasTranscriptions(_ value: Bool?) -> Builder { modified(self) { $0.hasTranscriptions = value } }

        /// Sessions per page (default 30, clamped to 1…1000).
        public func limit(_ limit: Int) -> Builder { modified(self) { $0.options.limit = limit } }

        /// The store to read (default: `TranscriptStores.current`).
        public func store(_ store: any TranscriptStore) -> Builder { modified(self) { $0.options.store = store } }

        public func build() -> CallLogsRequest {
            CallLogsRequest(hasTranscriptions: hasTranscriptions, options: options)
        }
    }

    /// The filter as built (nil: unset).
    public let hasTranscriptions: Bool?
    public let limit: Int
    private let pager: PagedRequest<CallLogRecord>

    init(hasTranscriptions: Bool?, options: PageOptions) {
        self.hasTranscriptions = hasTranscriptions
        let attach = hasTranscriptions == true
        pager = PagedRequest(options) { store, after, limit throws(TranscriptsError) in
            let rows = try store.sessions(after: after, limit: limit, transcribedOnly: attach)
            let transcripts = attach && !rows.isEmpty ? try store.transcripts(ofSessions: rows.map(\.key)) : []
            return (CallLogRecord.records(sessions: rows, transcripts: transcripts), rows.last?.key)
        }
        limit = pager.limit
    }

    /// The 1-based number of the page last returned; 0 before the first.
    public var pageNumber: Int { pager.pageNumber }

    /// The next page of sessions, or `[]` after the last.
    public func fetchNext() async throws(TranscriptsError) -> [CallLogRecord] {
        try await pager.fetch(.next)
    }

    /// The previous page, or `[]` on page 1 and before the first fetch.
    public func fetchPrevious() async throws(TranscriptsError) -> [CallLogRecord] {
        try await pager.fetch(.previous)
    }
}
