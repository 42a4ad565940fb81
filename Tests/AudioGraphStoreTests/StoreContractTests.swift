import AudioGraphStore
import Foundation
import Testing

/// What every `TranscriptStore` / `AccessTokenStore` does, run against each backend (`StoreBackend.tested`):
/// SQLite always, PostgreSQL when `AUDIOGRAPH_TEST_POSTGRES_URL` is set. Each test gets an empty store.
@Suite("Store contract (SQLite and PostgreSQL)")
struct StoreContractTests {
    /// Session `id` (a new row) with `count` transcripts of one utterance each; returns the session key and tids.
    /// (Also used by the other contract suites.)
    @discardableResult
    func addSession(_ store: any TranscriptStore, _ id: String, transcripts count: Int, participants: [String] = [],
                    start: Int64 = 1_700_000_000, workItem: String? = nil) throws -> (key: Int64, tids: [String]) {
        let key = try store.createSession(NewSession(sessionID: id, roomName: "room \(id)", url: "https://media/\(id)",
                                                     startTime: start, participants: participants, workItem: workItem))
        var tids: [String] = []
        for index in 0..<count {
            tids.append(try addTranscript(store, session: key, id: id, index: index, start: start))
        }
        return (key, tids)
    }

    private func addTranscript(_ store: any TranscriptStore, session key: Int64, id: String, index: Int,
                               start: Int64 = 1_700_000_000) throws -> String {
        let tid = "\(id)-t\(index)-\(key)"
        let transcript = try store.beginTranscript(NewTranscript(
            tid: tid, sessionKey: key, sessionID: id, language: "en-US", startTime: start + Int64(index) * 60,
            transcriptURL: "file:///tmp/\(tid).json"))
        try store.appendUtterance(StoredUtterance(segment: 0, start: 0.5, end: 1.5, text: "utterance \(index)"),
                                  transcript: transcript, time: start + Int64(index) * 60 + 30)
        return tid
    }

    @Test("writes a session, a transcript and its utterances, and reads them back (rows and detail)",
          arguments: StoreBackend.tested)
    func writeAndRead(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        let session = try store.createSession(NewSession(sessionID: "s1", roomName: "Room", url: "https://m/1",
                                                         startTime: 1000, participants: ["ann"]))
        #expect(try store.sessions(after: nil, limit: 10, transcribedOnly: true).isEmpty)
        let transcript = try store.beginTranscript(NewTranscript(tid: "t1", sessionKey: session, sessionID: "s1",
                                                                 language: "de-DE", startTime: 1001, transcriptURL: "file:///t1.json"))
        let words = [StoredUtterance.Word(word: "hallo", start: 0.25, end: 0.5), .init(word: "welt", start: 0.5, end: 0.875)]
        try store.appendUtterance(StoredUtterance(segment: 0, start: 0.25, end: 0.875, text: "hallo welt", confidence: 0.75,
                                                  words: words, language: "de-DE"), transcript: transcript, time: 1002)
        try store.appendUtterance(StoredUtterance(segment: 1, start: 1.5, end: 2, text: "O'Brien; DROP TABLE x --",
                                                  language: "de-DE"), transcript: transcript, time: 1003)
        try store.finishTranscript(transcript, endTime: 1004)
        try store.endSession(session, endTime: 1005)

        let rows = try store.transcripts(sessionID: "s1", after: nil, limit: 10)
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row.key == transcript)
        #expect(row.values == [
            "id": .integer(transcript), "tid": .text("t1"), "session_row": .integer(session), "session_id": .text("s1"),
            "room_name": .text("Room"), "url": .text("https://m/1"), "language": .text("de-DE"),
            "start_time": .integer(1001), "end_time": .integer(1004), "transcript_date": .text(StoreTime.iso8601(1001)),
            "transcript_url": .text("file:///t1.json"),
        ])
        let sessions = try store.sessions(after: nil, limit: 10, transcribedOnly: true)
        #expect(sessions.map(\.values) == [[
            "id": .integer(session), "session_id": .text("s1"), "room_name": .text("Room"), "url": .text("https://m/1"),
            "start_time": .integer(1000), "end_time": .integer(1005), "has_transcription": .integer(1),
        ]])

        let detail = try #require(try store.transcript(tid: "t1"))
        #expect(detail.row == row)
        #expect(detail.utterances == [
            StoredUtterance(segment: 0, start: 0.25, end: 0.875, text: "hallo welt", confidence: 0.75, words: words,
                            language: "de-DE"),
            StoredUtterance(segment: 1, start: 1.5, end: 2, text: "O'Brien; DROP TABLE x --", language: "de-DE"),
        ])
        #expect(try store.transcript(tid: "none") == nil)
        #expect(try store.transcripts(ofSessions: [session]).map(\.key) == [transcript])
        #expect(try store.transcripts(ofSessions: []).isEmpty)
    }

    @Test("pages by keyset and by offset: ascending keys, a session's transcripts only, the same rows both ways",
          arguments: StoreBackend.tested)
    func paging(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        let a = try addSession(store, "a", transcripts: 0, participants: ["ann"])
        let b = try addSession(store, "b", transcripts: 0, participants: ["ann"])
        var tidsA: [String] = []
        for index in 0..<7 {
            tidsA.append(try addTranscript(store, session: a.key, id: "a", index: index))
            _ = try addTranscript(store, session: b.key, id: "b", index: index)
        }
        _ = try addSession(store, "empty", transcripts: 0)

        var keyset: [StoreRow] = []
        var after: Int64?
        while true {
            let page = try store.transcripts(sessionID: "a", after: after, limit: 3)
            if page.isEmpty { break }
            #expect(page.count <= 3)
            keyset += page
            after = page.last?.key
        }
        #expect(keyset.map { $0["tid"]?.description } == tidsA.map { Optional($0) })
        #expect(keyset.map(\.key) == keyset.map(\.key).sorted())
        var offsets: [StoreRow] = []
        for offset in stride(from: 0, to: 9, by: 3) {
            offsets += try store.transcripts(sessionID: "a", participant: "ann", after: nil, offset: offset, limit: 3)
        }
        #expect(offsets == keyset)
        #expect(try store.transcripts(sessionID: "a", participant: "ann", after: nil, offset: 6, limit: 3).count == 1)

        let all = try store.sessions(after: nil, limit: 10, transcribedOnly: false)
        #expect(all.map { $0["session_id"]?.description } == ["a", "b", "empty"])
        #expect(try store.sessions(after: nil, limit: 10, transcribedOnly: true).map { $0["session_id"]?.description } == ["a", "b"])
        #expect(try store.sessions(after: all[0].key, limit: 1, transcribedOnly: false).map(\.key) == [all[1].key])
        #expect(try store.transcripts(ofSessions: [a.key, b.key]).count == 14)
    }

    @Test("participants: who took part sees the session, by keyset and offset", arguments: StoreBackend.tested)
    func participants(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        let one = try addSession(store, "one", transcripts: 1, participants: ["ann", "bo", "ann"])
        _ = try addSession(store, "two", transcripts: 0, participants: ["ann"])
        let three = try addSession(store, "three", transcripts: 2, participants: ["ann", "cy"])
        #expect(try store.isParticipant("ann", sessionID: "one"))
        #expect(try store.isParticipant("bo", sessionID: "one"))
        #expect(try !store.isParticipant("cy", sessionID: "one"))
        #expect(try !store.isParticipant("ann", sessionID: "nope"))
        let ann = try store.sessions(participant: "ann", after: nil, offset: 0, limit: 10, transcribedOnly: false)
        #expect(ann.map { $0["session_id"]?.description } == ["one", "two", "three"])
        #expect(try store.sessions(participant: "ann", after: nil, offset: 0, limit: 10, transcribedOnly: true).map(\.key)
                == [one.key, three.key])
        #expect(try store.sessions(participant: "ann", after: one.key, offset: 0, limit: 10, transcribedOnly: true).map(\.key)
                == [three.key])
        #expect(try store.sessions(participant: "ann", after: nil, offset: 1, limit: 1, transcribedOnly: false).map(\.key)
                == [ann[1].key])
        #expect(try store.sessions(participant: "dee", after: nil, offset: 0, limit: 10, transcribedOnly: false).isEmpty)
    }

    @Test("access tokens: add, get, list oldest first, revoke a user's live ones; a duplicate id is store_unavailable",
          arguments: StoreBackend.tested)
    func tokens(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        let hash: [UInt8] = Array(0...31).map { UInt8($0 * 7 % 256) } + [0x00, 0xff]
        try store.addToken(StoredAccessToken(id: "tok2", user: "ann", secretHash: hash, created: 20))
        try store.addToken(StoredAccessToken(id: "tok1", user: "ann", secretHash: [1, 2], created: 10))
        try store.addToken(StoredAccessToken(id: "tok3", user: "bo", secretHash: [], created: 20, revoked: 25))
        #expect { try store.addToken(StoredAccessToken(id: "tok1", user: "x", secretHash: [9], created: 1)) } throws: {
            ($0 as? TranscriptsError)?.code == "store_unavailable"
        }
        #expect(try store.token(id: "tok2") == StoredAccessToken(id: "tok2", user: "ann", secretHash: hash, created: 20))
        #expect(try store.token(id: "nope") == nil)
        #expect(try store.tokens().map(\.id) == ["tok1", "tok2", "tok3"])
        #expect(try store.revokeTokens(user: "ann", at: 30) == 2)
        #expect(try store.revokeTokens(user: "ann", at: 40) == 0)
        #expect(try store.tokens().map(\.revoked) == [30, 30, 25])
    }

    @Test("removeSessions(workItem:) deletes the runs tagged with a work item, with their participants, transcripts and utterances, and nothing else",
          arguments: StoreBackend.tested)
    func removeSessions(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        let untagged = try addSession(store, "file-1", transcripts: 1, participants: ["bob"])  // another run of the id
        let first = try addSession(store, "file-1", transcripts: 2, participants: ["ann"], workItem: "item-a")
        _ = try addSession(store, "file-1", transcripts: 1, participants: ["ann"], workItem: "item-a")  // its second attempt
        let other = try addSession(store, "file-2", transcripts: 1, participants: ["ann"], workItem: "item-b")
        #expect(try store.removeSessions(workItem: "item-a") == 2)
        #expect(try store.transcripts(sessionID: "file-1", after: nil, limit: 10).map { $0["tid"]?.description } == untagged.tids)
        #expect(try store.transcript(tid: first.tids[0]) == nil)
        #expect(try !store.isParticipant("ann", sessionID: "file-1"))
        #expect(try store.isParticipant("bob", sessionID: "file-1"))
        #expect(try store.sessions(after: nil, limit: 10, transcribedOnly: false).map(\.key) == [untagged.key, other.key])
        #expect(try store.transcript(tid: untagged.tids[0])?.utterances.count == 1)
        #expect(try store.transcript(tid: other.tids[0])?.utterances.count == 1)
        #expect(try store.removeSessions(workItem: "item-a") == 0)
        #expect(try store.removeSessions(workItem: "") == 0, "an empty tag matches no untagged run")
        #expect(try store.transcript(tid: untagged.tids[0]) != nil)
    }

    @Test("a closed store answers store_not_opened; close is idempotent", arguments: StoreBackend.tested)
    func closed(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = try fixture.reopen()
        store.close()
        store.close()
        #expect(throws: TranscriptsError.storeNotOpened) { try store.sessions(after: nil, limit: 1, transcribedOnly: false) }
        #expect(throws: TranscriptsError.storeNotOpened) { try store.status() }
    }

    @Test("what one connection writes, another reads", arguments: StoreBackend.tested)
    func twoConnections(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let reader = try fixture.reopen(create: false)
        defer { reader.close() }
        let written = try addSession(fixture.store, "shared", transcripts: 2)
        #expect(try reader.transcripts(sessionID: "shared", after: nil, limit: 10).map { $0["tid"]?.description }
                == written.tids.map { Optional($0) })
    }
}
