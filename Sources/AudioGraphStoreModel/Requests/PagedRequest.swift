import Dispatch
import Synchronization

/// What every local request's builder collects besides its filter: the page size (as given) and the store.
struct PageOptions: Sendable {
    var limit = TranscriptsRequest.defaultLimit
    var store: (any TranscriptStore)?
}

/// A page size clamped to `TranscriptsRequest.limitRange`.
func clampedPageLimit(_ limit: Int) -> Int {
    min(max(limit, TranscriptsRequest.limitRange.lowerBound), TranscriptsRequest.limitRange.upperBound)
}

/// A copy of a builder with one change: the body of every builder method.
func modified<Builder>(_ builder: Builder, _ change: (inout Builder) -> Void) -> Builder {
    var copy = builder
    change(&copy)
    return copy
}

/// The shared engine of the paginated requests, local (`TranscriptsRequest`, `CallLogsRequest`: a store query
/// on a dispatch queue) and remote (`RemoteTranscriptsRequest`: an HTTP request): a `TranscriptCursor` in a
/// `Mutex`, and an async page source.
///
/// The engine keeps the cursor rules in one place: a fetch while another is in flight fails with
/// `requestInProgress` without reaching the source; `previous` on page 1 answers `[]` without reaching it; the
/// cursor moves only when the source succeeds; an empty page past the last leaves it where it was.
package final class PagedRequest<Record: Sendable>: Sendable {
    /// Reads one page: up to `limit` records with keys above `after` (nil: from the first), and the key of the
    /// last raw row the page held (nil when it held none: past the last page). Records that did not parse are
    /// left out of the array but count for `lastKey`.
    package typealias Source = @Sendable (_ after: Int64?, _ limit: Int) async throws(TranscriptsError)
        -> ([Record], lastKey: Int64?)

    /// A blocking store query: the store, `after`, `limit`; the parsed records and the key of the last raw row.
    typealias Query = @Sendable (any TranscriptStore, Int64?, Int) throws(TranscriptsError) -> ([Record], Int64?)

    /// Records per page, after clamping to `TranscriptsRequest.limitRange`.
    package let limit: Int
    private let source: Source
    private let cursor = Mutex(TranscriptCursor())

    /// An engine over any page source; `limit` is clamped to `TranscriptsRequest.limitRange`.
    package init(limit: Int, source: @escaping Source) {
        self.limit = clampedPageLimit(limit)
        self.source = source
    }

    /// An engine over a store query: the store is the options' one, else `TranscriptStores.current` at fetch time
    /// (`storeNotOpened` with neither); the query runs on a dispatch queue, off the caller's task.
    convenience init(_ options: PageOptions, query: @escaping Query) {
        let store = options.store
        self.init(limit: options.limit) { after, limit throws(TranscriptsError) in
            guard let store = store ?? TranscriptStores.current else { throw .storeNotOpened }
            let page = await Self.offTask { () throws(TranscriptsError) in try query(store, after, limit) }
            switch page {
            case .success(let page): return (page.0, lastKey: page.1)
            case .failure(let error): throw error
            }
        }
    }

    /// The 1-based number of the page last returned; 0 before the first.
    package var pageNumber: Int { cursor.withLock { $0.pageNumber } }

    /// One fetch under the cursor rules.
    package func fetch(_ direction: TranscriptCursor.Direction) async throws(TranscriptsError) -> [Record] {
        let after: Int64?
        switch cursor.withLock({ $0.begin(direction) }) {
        case .inProgress: throw .requestInProgress
        case .empty: return []
        case .query(let key): after = key
        }
        let page: Page
        do throws(TranscriptsError) {
            page = try await self.page(after: after)
        } catch {
            cursor.withLock { $0.failed() }
            throw error
        }
        cursor.withLock { $0.succeeded(lastKey: page.lastKey) }
        return page.records
    }

    private struct Page: Sendable {
        var records: [Record]
        var lastKey: Int64?
    }

    /// One page. When every row of a page fails to parse, the page goes on past them, so `[]` keeps meaning
    /// "after the last" (and then the cursor stays where it was).
    private func page(after: Int64?) async throws(TranscriptsError) -> Page {
        var from = after
        while true {
            let (records, lastKey) = try await source(from, limit)
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
