import AudioGraphStore
import Foundation
import Testing

/// `TranscriptsRequest` against a real SQLite store, through a wrapper that can fail and hold queries.
@Suite("TranscriptsRequest")
struct TranscriptsRequestTests {
    private func request(_ store: any TranscriptStore, session: String? = "a", limit: Int? = nil) -> TranscriptsRequest {
        var builder = TranscriptsRequest.Builder().sessionId(session).store(store)
        if let limit { builder = builder.limit(limit) }
        return builder.build()
    }

    @Test("a missing or empty session id fails every fetch with session_id_missing", arguments: [nil, ""] as [String?])
    func sessionIdMissing(session: String?) async throws {
        let fixture = try StoreFixture.interleaved(3)
        let request = request(fixture.store, session: session)
        await #expect(throws: TranscriptsError.sessionIdMissing) { try await request.fetchNext() }
        await #expect(throws: TranscriptsError.sessionIdMissing) { try await request.fetchPrevious() }
        #expect(TranscriptsError.sessionIdMissing.code == "session_id_missing")
    }

    @Test("limit defaults to 30 and is clamped to 1…1000")
    func limits() async throws {
        let fixture = try StoreFixture.interleaved(35)
        #expect(request(fixture.store).limit == 30)
        #expect(try await request(fixture.store).fetchNext().count == 30)
        #expect(request(fixture.store, limit: 0).limit == 1)
        #expect(request(fixture.store, limit: -7).limit == 1)
        #expect(try await request(fixture.store, limit: 0).fetchNext().count == 1)
        #expect(request(fixture.store, limit: 5000).limit == 1000)
        #expect(try await request(fixture.store, limit: 5000).fetchNext().count == 35)
        #expect(request(fixture.store, limit: 1000).limit == 1000)
    }

    @Test("fetchNext walks the session's transcripts in order, then gives [] after the last, and finds rows added later")
    func fetchNextWalks() async throws {
        var fixture = try StoreFixture.interleaved(7)
        let request = request(fixture.store, limit: 3)
        #expect(tids(try await request.fetchNext()) == expected("a", 0..<3))
        #expect(tids(try await request.fetchNext()) == expected("a", 3..<6))
        #expect(tids(try await request.fetchNext()) == expected("a", 6..<7))
        #expect(try await request.fetchNext().isEmpty)
        #expect(try await request.fetchNext().isEmpty, "still empty")
        #expect(request.pageNumber == 3)
        try fixture.addTranscript(session: fixture.sessions[0].key, id: "a", index: 7)
        #expect(tids(try await request.fetchNext()) == ["a-t7"], "a transcript added later is the next page")
    }

    @Test("a full last page is followed by []")
    func exactMultiple() async throws {
        let fixture = try StoreFixture.interleaved(6)
        let request = request(fixture.store, limit: 3)
        #expect(try await request.fetchNext().count == 3)
        #expect(try await request.fetchNext().count == 3)
        #expect(try await request.fetchNext().isEmpty)
    }

    @Test("fetchPrevious: empty on a fresh request and on page 1, else the page before; never below page 1")
    func fetchPrevious() async throws {
        let fixture = try StoreFixture.interleaved(10)
        let store = ControllableStore(fixture.store)
        let request = request(store, limit: 3)
        #expect(try await request.fetchPrevious().isEmpty, "fresh")
        #expect(store.queryCount == 0, "answered without a query")
        #expect(tids(try await request.fetchNext()) == expected("a", 0..<3))
        #expect(try await request.fetchPrevious().isEmpty, "on page 1")
        #expect(try await request.fetchPrevious().isEmpty, "still page 1")
        #expect(tids(try await request.fetchNext()) == expected("a", 3..<6), "next after previous-on-page-1 is page 2")
        #expect(tids(try await request.fetchNext()) == expected("a", 6..<9))
        #expect(tids(try await request.fetchPrevious()) == expected("a", 3..<6))
        #expect(tids(try await request.fetchPrevious()) == expected("a", 0..<3))
        #expect(try await request.fetchPrevious().isEmpty)
        #expect(request.pageNumber == 1)
        #expect(tids(try await request.fetchNext()) == expected("a", 3..<6))
        // Past the end and back.
        #expect(tids(try await request.fetchNext()) == expected("a", 6..<9))
        #expect(tids(try await request.fetchNext()) == expected("a", 9..<10))
        #expect(try await request.fetchNext().isEmpty)
        #expect(tids(try await request.fetchPrevious()) == expected("a", 6..<9))
    }

    @Test("a failed fetchNext leaves the cursor where it was: the retry gives the page the failed fetch would have")
    func retryNextAfterFailure() async throws {
        let fixture = try StoreFixture.interleaved(9)
        let store = ControllableStore(fixture.store)
        let request = request(store, limit: 3)
        store.failNextQuery()
        await #expect(throws: TranscriptsError.storeUnavailable("injected failure")) { try await request.fetchNext() }
        #expect(request.pageNumber == 0)
        #expect(tids(try await request.fetchNext()) == expected("a", 0..<3), "the retry gives page 1")
        store.failNextQuery(with: .malformedData("injected"))
        await #expect(throws: TranscriptsError.malformedData("injected")) { try await request.fetchNext() }
        #expect(tids(try await request.fetchNext()) == expected("a", 3..<6), "the retry gives page 2, not 3")
        #expect(tids(try await request.fetchNext()) == expected("a", 6..<9))
    }

    @Test("a failed fetchPrevious leaves the cursor where it was: the retry gives the previous page")
    func retryPreviousAfterFailure() async throws {
        let fixture = try StoreFixture.interleaved(9)
        let store = ControllableStore(fixture.store)
        let request = request(store, limit: 3)
        for _ in 0..<3 { _ = try await request.fetchNext() }
        store.failNextQuery()
        await #expect(throws: TranscriptsError.self) { try await request.fetchPrevious() }
        #expect(request.pageNumber == 3)
        #expect(tids(try await request.fetchPrevious()) == expected("a", 3..<6))
        store.failNextQuery()
        await #expect(throws: TranscriptsError.self) { try await request.fetchPrevious() }
        #expect(tids(try await request.fetchPrevious()) == expected("a", 0..<3))
    }

    @Test("a second fetch while one is in flight fails with request_in_progress; the first completes")
    func inFlight() async throws {
        let fixture = try StoreFixture.interleaved(9)
        let store = ControllableStore(fixture.store)
        let request = request(store, limit: 3)
        _ = try await request.fetchNext()

        let gate = store.holdNextQuery()
        let first = Task { try await request.fetchNext() }
        await gate.waitUntilEntered()
        await #expect(throws: TranscriptsError.requestInProgress) { try await request.fetchNext() }
        await #expect(throws: TranscriptsError.requestInProgress) { try await request.fetchPrevious() }
        #expect(store.queryCount == 2, "the rejected fetches never reached the store")
        gate.open()
        #expect(tids(try await first.value) == expected("a", 3..<6), "the first fetch completes with page 2")
        #expect(request.pageNumber == 2)
        #expect(tids(try await request.fetchNext()) == expected("a", 6..<9), "and the request goes on")
        #expect(TranscriptsError.requestInProgress.code == "request_in_progress")
    }

    @Test("a fetch held in flight that then fails can be retried, and was the only one in flight")
    func inFlightThenFailure() async throws {
        let fixture = try StoreFixture.interleaved(6)
        let store = ControllableStore(fixture.store)
        let request = request(store, limit: 3)
        let gate = store.holdNextQuery()
        store.failNextQuery()
        let first = Task { try await request.fetchNext() }
        await gate.waitUntilEntered()
        await #expect(throws: TranscriptsError.requestInProgress) { try await request.fetchNext() }
        gate.open()
        await #expect(throws: TranscriptsError.storeUnavailable("injected failure")) { try await first.value }
        #expect(tids(try await request.fetchNext()) == expected("a", 0..<3))
    }

    @Test("records carry tid, mid, roomName, startTime, endTime, url, transcriptDate, transcriptUrl and the raw row")
    func recordFields() async throws {
        let fixture = try StoreFixture.interleaved(2)
        let record = try #require(try await request(fixture.store).fetchNext().last)
        #expect(record.tid == "a-t1")
        #expect(record.mid == "a")
        #expect(record.roomName == "room")
        #expect(record.startTime == 1_700_000_060)
        #expect(record.endTime == 1_700_000_090, "moved by its utterance")
        #expect(record.url == "https://media/a")
        #expect(record.transcriptDate == "2023-11-14T22:14:20Z")
        #expect(record.transcriptUrl == "file:///tmp/a-t1.json")
        #expect(record.metaData["tid"] == .text("a-t1"))
        #expect(record.metaData["language"] == .text("en-US"))
        #expect(record.metaData["start_time"] == .integer(1_700_000_060))

        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(record)) as? [String: Any]
        #expect(Set(json?.keys.map { $0 } ?? []) == ["tid", "mid", "roomName", "startTime", "endTime", "url", "transcriptDate",
                                                      "transcriptUrl", "metaData"])
        #expect(try JSONDecoder().decode(TranscriptRecord.self, from: try JSONEncoder().encode(record)) == record)
    }

    @Test("sparse rows are normal (missing strings \"\", numbers 0); a row that fails to parse is skipped, not the page")
    func sparseAndMalformed() async throws {
        let fixture = try StoreFixture.interleaved(2)
        try fixture.sql("""
            INSERT INTO transcripts (tid, session_id) VALUES ('sparse', 'a');
            INSERT INTO transcripts (tid, session_id, start_time) VALUES ('bad-time', 'a', 'yesterday');
            INSERT INTO transcripts (tid, session_id) VALUES ('', 'a');
            INSERT INTO transcripts (tid, session_id, start_time, end_time) VALUES ('text-numbers', 'a', '12', 13.9);
            """)
        let records = try await request(fixture.store, limit: 10).fetchNext()
        #expect(tids(records) == ["a-t0", "a-t1", "sparse", "text-numbers"])
        let sparse = try #require(records.first { $0.tid == "sparse" })
        #expect(sparse == TranscriptRecord(tid: "sparse", mid: "a", metaData: sparse.metaData))
        #expect(sparse.metaData["start_time"] == .null)
        let numbers = try #require(records.last)
        #expect(numbers.startTime == 12 && numbers.endTime == 13)
    }

    @Test("a page whose rows all fail to parse does not end the list")
    func malformedPage() async throws {
        var fixture = try StoreFixture.interleaved(2)
        try fixture.sql("""
            INSERT INTO transcripts (tid, session_id, start_time) VALUES ('bad1', 'a', 'x');
            INSERT INTO transcripts (tid, session_id, start_time) VALUES ('bad2', 'a', 'y');
            """)
        try fixture.addTranscript(session: fixture.sessions[0].key, id: "a", index: 2)
        let request = request(fixture.store, limit: 2)
        #expect(tids(try await request.fetchNext()) == ["a-t0", "a-t1"])
        #expect(tids(try await request.fetchNext()) == ["a-t2"], "the bad rows are skipped, the row after them comes")
        #expect(try await request.fetchNext().isEmpty)
        #expect(tids(try await request.fetchPrevious()) == ["a-t0", "a-t1"])
    }

    @Test("a session with no transcripts: [] both ways")
    func unknownSession() async throws {
        let fixture = try StoreFixture.interleaved(2)
        let request = request(fixture.store, session: "nobody")
        #expect(try await request.fetchNext().isEmpty)
        #expect(try await request.fetchPrevious().isEmpty)
    }

    @Test("no store: store_not_opened; a bootstrapped default store is used; a closed store is store_not_opened")
    func storeNotOpened() async throws {
        let fixture = try StoreFixture.interleaved(2)
        // The only test that touches the process-wide default.
        TranscriptStores.bootstrap(nil)
        let orphan = TranscriptsRequest.Builder().sessionId("a").build()
        await #expect(throws: TranscriptsError.storeNotOpened) { try await orphan.fetchNext() }
        #expect(orphan.pageNumber == 0)
        TranscriptStores.bootstrap(fixture.store)
        defer { TranscriptStores.bootstrap(nil) }
        #expect(tids(try await orphan.fetchNext()) == ["a-t0", "a-t1"], "the retry succeeds once a store is there")
        let calls = try await CallLogsRequest.Builder().build().fetchNext()
        #expect(calls.map(\.mid) == ["a", "other"])

        let other = try StoreFixture.interleaved(1)
        let request = request(other.store)
        other.store.close()
        await #expect(throws: TranscriptsError.storeNotOpened) { try await request.fetchNext() }
        #expect(TranscriptsError.storeNotOpened.code == "store_not_opened")
    }

    @Test("error codes are stable")
    func codes() {
        #expect([TranscriptsError.storeNotOpened, .sessionIdMissing, .requestInProgress, .storeUnavailable("x"),
                 .malformedData("y")].map(\.code)
            == ["store_not_opened", "session_id_missing", "request_in_progress", "store_unavailable", "malformed_data"])
    }
}
