/// The paging rules of `TranscriptsRequest` and `CallLogsRequest`, as a pure state machine (the way swift-nio
/// keeps protocol logic in structs that return actions): it decides what to query, and learns what came back.
/// It never touches a store, so every rule is tested alone.
///
/// Pages are keyset pages: page k + 1 holds the rows with keys above page k's last key, so no page is ever found
/// by counting rows (no OFFSET). Going back uses the boundaries of the pages already seen (a stack), so
/// `previous` re-reads a page from where it started.
///
/// Rules:
/// - `next` on a fresh cursor reads page 1; after page k it reads page k + 1. A page that comes back empty
///   (past the last) leaves the cursor where it was, so a later `next` sees rows added since.
/// - `previous` from page k > 1 reads page k − 1; on page 1, or before any page, it is `.empty` (answer `[]`
///   without a query): never below page 1.
/// - The cursor moves only when a query succeeds (`succeeded`); after `failed` it is where it was, so the same
///   fetch can be retried.
/// - While a query is in flight every other `begin` is `.inProgress`; the query in flight is unaffected.
public struct TranscriptCursor: Sendable, Equatable {
    public enum Direction: Sendable, Equatable {
        case next
        case previous
    }

    /// What to do for a fetch.
    public enum Action: Sendable, Equatable {
        /// Query up to `limit` rows with keys above `after` (nil: from the first row); then call `succeeded` or
        /// `failed`.
        case query(after: Int64?)
        /// Answer `[]` without querying (previous on page 1 or before any page). Nothing is in flight.
        case empty
        /// Fail with `requestInProgress`: another fetch is running. Nothing changes.
        case inProgress
    }

    /// A page already read: it holds the rows with keys in (`after`, `last`].
    public struct Page: Sendable, Equatable {
        public var after: Int64?
        public var last: Int64
    }

    /// Pages read so far, in order (the stack `previous` walks back down).
    public private(set) var pages: [Page] = []
    /// Index in `pages` of the page last returned; nil before the first.
    public private(set) var current: Int?
    /// The fetch whose query is running.
    public private(set) var inFlight: Direction?

    public init() {}

    /// The 1-based number of the page last returned; 0 before the first.
    public var pageNumber: Int { (current ?? -1) + 1 }

    /// Starts a fetch.
    public mutating func begin(_ direction: Direction) -> Action {
        guard inFlight == nil else { return .inProgress }
        switch direction {
        case .next:
            inFlight = .next
            return .query(after: current.map { pages[$0].last })
        case .previous:
            guard let current, current > 0 else { return .empty }
            inFlight = .previous
            return .query(after: pages[current - 1].after)
        }
    }

    /// The query in flight succeeded; `lastKey` is the key of the last row it returned (nil when it returned
    /// none).
    public mutating func succeeded(lastKey: Int64?) {
        guard let direction = inFlight else { return }
        inFlight = nil
        switch direction {
        case .next:
            guard let lastKey else { return }  // past the last page: stay
            let after = current.map { pages[$0].last }
            let index = (current ?? -1) + 1
            pages = Array(pages.prefix(index)) + [Page(after: after, last: lastKey)]
            current = index
        case .previous:
            guard let current, current > 0 else { return }
            let index = current - 1
            if let lastKey { pages[index].last = lastKey }
            self.current = index
        }
    }

    /// The query in flight failed: nothing moves.
    public mutating func failed() {
        inFlight = nil
    }
}
