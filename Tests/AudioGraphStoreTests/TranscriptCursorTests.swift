import AudioGraphStore
import Testing

/// The cursor state machine alone: every paging rule, with no store.
@Suite("TranscriptCursor (pure state machine)")
struct TranscriptCursorTests {
    /// Reads pages of `size` over keys 1…`total` the way a store would, driving the cursor; returns the keys.
    private static func run(_ cursor: inout TranscriptCursor, _ direction: TranscriptCursor.Direction,
                            total: Int64 = 10, size: Int64 = 3) -> [Int64]? {
        switch cursor.begin(direction) {
        case .inProgress: return nil
        case .empty: return []
        case .query(let after):
            let first = (after ?? 0) + 1
            let keys = first > total ? [] : Array(first...min(total, first + size - 1))
            cursor.succeeded(lastKey: keys.last)
            return keys
        }
    }

    @Test("a fresh cursor: next queries from the start, previous is empty without a query")
    func fresh() {
        var cursor = TranscriptCursor()
        #expect(cursor.pageNumber == 0)
        #expect(cursor.begin(.previous) == .empty)
        #expect(cursor.inFlight == nil, "an empty answer leaves nothing in flight")
        #expect(cursor.begin(.next) == .query(after: nil))
        #expect(cursor.inFlight == .next)
    }

    @Test("next walks pages by the last key of the page before (keyset), then stays after the last")
    func nextWalks() {
        var cursor = TranscriptCursor()
        #expect(Self.run(&cursor, .next) == [1, 2, 3])
        #expect(cursor.begin(.next) == .query(after: 3))
        cursor.succeeded(lastKey: 6)
        #expect(cursor.pageNumber == 2)
        #expect(Self.run(&cursor, .next) == [7, 8, 9])
        #expect(Self.run(&cursor, .next) == [10])
        #expect(cursor.pageNumber == 4)
        #expect(Self.run(&cursor, .next) == [], "after the last page: empty")
        #expect(cursor.pageNumber == 4, "an empty page does not move the cursor")
        #expect(cursor.begin(.next) == .query(after: 10), "so rows added later are found from the last key")
    }

    @Test("previous goes back one page at a time from where each page started, never below page 1")
    func previousWalksBack() {
        var cursor = TranscriptCursor()
        for _ in 0..<3 { _ = Self.run(&cursor, .next) }
        #expect(cursor.pageNumber == 3)
        #expect(cursor.begin(.previous) == .query(after: 3), "page 2 starts after page 1's last key")
        cursor.succeeded(lastKey: 6)
        #expect(cursor.pageNumber == 2)
        #expect(Self.run(&cursor, .previous) == [1, 2, 3])
        #expect(cursor.pageNumber == 1)
        #expect(cursor.begin(.previous) == .empty, "on page 1")
        #expect(cursor.pageNumber == 1)
        #expect(Self.run(&cursor, .next) == [4, 5, 6], "next from page 1 is page 2 again")
        #expect(cursor.pageNumber == 2)
    }

    @Test("previous after running past the end gives the page before the last one")
    func previousAfterEnd() {
        var cursor = TranscriptCursor()
        while Self.run(&cursor, .next) != [] {}
        #expect(cursor.pageNumber == 4)
        #expect(Self.run(&cursor, .previous) == [7, 8, 9])
    }

    @Test("a failed query moves nothing, so the same fetch is retried", arguments: [TranscriptCursor.Direction.next, .previous])
    func failureRetries(direction: TranscriptCursor.Direction) {
        var cursor = TranscriptCursor()
        for _ in 0..<2 { _ = Self.run(&cursor, .next) }
        let before = cursor
        let first = cursor.begin(direction)
        cursor.failed()
        #expect(cursor == before, "unchanged by the failure")
        #expect(cursor.begin(direction) == first, "the retry asks for the same page")
    }

    @Test("while a query is in flight every other fetch is rejected and the one in flight completes")
    func inFlight() {
        var cursor = TranscriptCursor()
        _ = Self.run(&cursor, .next)
        _ = Self.run(&cursor, .next)
        #expect(cursor.begin(.next) == .query(after: 6))
        #expect(cursor.begin(.next) == .inProgress)
        #expect(cursor.begin(.previous) == .inProgress)
        cursor.succeeded(lastKey: 9)
        #expect(cursor.pageNumber == 3, "the first fetch moved the cursor once")
        #expect(cursor.inFlight == nil)
        #expect(cursor.begin(.previous) == .query(after: 3))
    }

    @Test("previous on page 1 while a query is in flight is still rejected")
    func inFlightBeatsEmpty() {
        var cursor = TranscriptCursor()
        #expect(cursor.begin(.next) == .query(after: nil))
        #expect(cursor.begin(.previous) == .inProgress)
    }

    @Test("going back then forward drops the pages beyond and re-reads them from the current boundary")
    func backThenForward() {
        var cursor = TranscriptCursor()
        for _ in 0..<3 { _ = Self.run(&cursor, .next) }
        _ = Self.run(&cursor, .previous)
        _ = Self.run(&cursor, .previous)
        #expect(cursor.pageNumber == 1)
        #expect(Self.run(&cursor, .next) == [4, 5, 6])
        #expect(cursor.pages.count == 2, "the stack holds pages 1 and 2 only")
        #expect(Self.run(&cursor, .next) == [7, 8, 9])
    }

    @Test("a stray success or failure with nothing in flight changes nothing")
    func strayResults() {
        var cursor = TranscriptCursor()
        _ = Self.run(&cursor, .next)
        let before = cursor
        cursor.succeeded(lastKey: 99)
        cursor.failed()
        #expect(cursor == before)
    }
}
