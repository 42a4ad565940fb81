import Dispatch
import Synchronization

/// What every request's builder collects besides its filter: the page size (as given) and the store.
struct PageOptions: Sendable {
    var limit = TranscriptsRequest.defaultLimit
    var store: (any TranscriptStore)?

    /// `limit` clamped to `TranscriptsRequest.limitRange`.
    var clampedLimit: Int {
        min(max(limit, TranscriptsRequest.limitRange.lowerBound), TranscriptsRequest.limitRange.upperBound)
    }
}

/// A copy of a builder with one change: the body of every builder method.
func modified<Builder>(_ builder: Builder, _ change: (inout Builder) -> Void) -> Builder {
    var copy = builder
    change(&copy)
    return copy
}

/// The shared engine of the requests: a `TranscriptCursor` in a `Mutex`, and a page query run off the caller's
/// task.
final class PagedRequest<Record: Sendable>: Sendable {
    /// Reads one page: the parsed records and the key of the last raw row (nil when there was none).
    typealias Query = @Sendable (any TranscriptStore, Int64?, Int) throws(TranscriptsError) -> ([Record], Int64?)

    private let store: (any TranscriptStore)?
    /// Records per page, after clamping.
    let limit: Int
    private let query: Query
    private let cursor = Mutex(TranscriptCursor())

    init(_ options: PageOptions, query: @escaping Query) {
        store = options.store
        limit = options.clampedLimit
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
