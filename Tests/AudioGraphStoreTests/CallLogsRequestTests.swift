import AudioGraphStore
import Foundation
import Testing

@Suite("CallLogsRequest")
struct CallLogsRequestTests {
    /// Sessions s0…s(n-1); every third (s0, s3, …) has no transcripts; the others have index % 3 transcripts.
    private func fixture(_ count: Int) throws -> StoreFixture {
        var fixture = try StoreFixture()
        for index in 0..<count {
            try fixture.addSession("s\(index)", room: "room\(index)", transcripts: index % 3, start: 1_700_000_000 + Int64(index))
        }
        return fixture
    }

    @Test("unfiltered (unset or false): every session, oldest first, with transcripts empty", arguments: [nil, false] as [Bool?])
    func unfiltered(filter: Bool?) async throws {
        let fixture = try fixture(7)
        let request = CallLogsRequest.Builder().hasTranscriptions(filter).limit(4).store(fixture.store).build()
        let page1 = try await request.fetchNext()
        #expect(page1.map(\.mid) == ["s0", "s1", "s2", "s3"])
        #expect(page1.map(\.hasTranscriptions) == [false, true, true, false])
        #expect(page1.allSatisfy { $0.transcripts.isEmpty })
        #expect(page1[1].roomName == "room1" && page1[1].startTime == 1_700_000_001 && page1[1].url == "https://media/s1")
        #expect(page1[1].endTime == 0, "not ended yet")
        #expect(try await request.fetchNext().map(\.mid) == ["s4", "s5", "s6"])
        #expect(try await request.fetchNext().isEmpty)
        #expect(try await request.fetchPrevious().map(\.mid) == ["s0", "s1", "s2", "s3"])
        #expect(try await request.fetchPrevious().isEmpty)
    }

    @Test("hasTranscriptions(true): only transcribed sessions, each with its own transcripts attached")
    func transcribedOnly() async throws {
        let fixture = try fixture(8)
        let request = CallLogsRequest.Builder().hasTranscriptions(true).limit(3).store(fixture.store).build()
        let page1 = try await request.fetchNext()
        #expect(page1.map(\.mid) == ["s1", "s2", "s4"])
        #expect(page1.allSatisfy { $0.hasTranscriptions })
        for call in page1 {
            #expect(call.transcripts.map(\.tid) == fixture.tids[call.mid], "\(call.mid)")
            #expect(call.transcripts.allSatisfy { $0.mid == call.mid && $0.roomName == call.roomName })
        }
        #expect(try await request.fetchNext().map(\.mid) == ["s5", "s7"])
        #expect(try await request.fetchNext().isEmpty)
    }

    @Test("a session that ended carries its end time")
    func ended() async throws {
        let fixture = try fixture(2)
        try fixture.store.endSession(fixture.sessions[1].key, endTime: 1_700_000_500)
        let calls = try await CallLogsRequest.Builder().store(fixture.store).build().fetchNext()
        #expect(calls.map(\.endTime) == [0, 1_700_000_500])
    }

    @Test("the same cursor rules: retry after a failure, request_in_progress while in flight")
    func cursorRules() async throws {
        let fixture = try fixture(6)
        let store = ControllableStore(fixture.store)
        let request = CallLogsRequest.Builder().limit(2).store(store).build()
        store.failNextQuery()
        await #expect(throws: TranscriptsError.storeUnavailable("injected failure")) { try await request.fetchNext() }
        #expect(try await request.fetchNext().map(\.mid) == ["s0", "s1"])

        let gate = store.holdNextQuery()
        let first = Task { try await request.fetchNext() }
        await gate.waitUntilEntered()
        await #expect(throws: TranscriptsError.requestInProgress) { try await request.fetchPrevious() }
        gate.open()
        #expect(try await first.value.map(\.mid) == ["s2", "s3"])
        #expect(try await request.fetchPrevious().map(\.mid) == ["s0", "s1"])
    }

    @Test("a failure while attaching transcripts fails the fetch and leaves the cursor")
    func attachFailure() async throws {
        let fixture = try fixture(3)
        let store = ControllableStore(fixture.store)
        let request = CallLogsRequest.Builder().hasTranscriptions(true).store(store).build()
        // The sessions query passes the gate; the transcripts query after it fails.
        let gate = store.holdNextQuery()
        let first = Task { try await request.fetchNext() }
        await gate.waitUntilEntered()
        store.failNextQuery()
        gate.open()
        await #expect(throws: TranscriptsError.self) { try await first.value }
        #expect(request.pageNumber == 0)
        #expect(try await request.fetchNext().map(\.mid) == ["s1", "s2"])
    }

    @Test("a session row that fails to parse is skipped")
    func malformedSession() async throws {
        let fixture = try fixture(2)
        try fixture.sql("INSERT INTO sessions (session_id, start_time) VALUES ('bad', 'noon')")
        try fixture.sql("INSERT INTO sessions (session_id) VALUES ('sparse')")
        let calls = try await CallLogsRequest.Builder().store(fixture.store).build().fetchNext()
        #expect(calls.map(\.mid) == ["s0", "s1", "sparse"])
        #expect(calls.last == CallLogRecord(mid: "sparse", metaData: calls.last!.metaData))
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(calls[0])) as? [String: Any]
        #expect(Set(json?.keys.map { $0 } ?? []) == ["mid", "roomName", "startTime", "endTime", "url", "hasTranscriptions",
                                                      "transcripts", "metaData"])
    }
}
