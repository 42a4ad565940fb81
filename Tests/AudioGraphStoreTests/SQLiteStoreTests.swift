@testable import AudioGraphStore
import AudioGraphTestKit
import Foundation
import Testing

@Suite("SQLite store: wrapper, schema, migrations, query plans")
struct SQLiteStoreTests {
    @Test("opening sets WAL and the schema version; reopening keeps the data")
    func openAndReopen() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("deep/er/t.sqlite")
        let store = try SQLiteTranscriptStore(path: path)
        #expect(try store.storedSchemaVersion() == SQLiteTranscriptStore.schemaVersion)
        #expect(try store.withConnection { db throws(SQLiteError) in try db.journalMode() } == "wal")
        let key = try store.createSession(NewSession(sessionID: "x", startTime: 5))
        store.close()
        store.close()  // idempotent
        #expect(throws: TranscriptsError.storeNotOpened) { try store.createSession(NewSession(sessionID: "y", startTime: 1)) }

        let again = try SQLiteTranscriptStore(path: path, create: false)
        let rows = try again.sessions(after: nil, limit: 10, transcribedOnly: false)
        #expect(rows.map(\.key) == [key])
        #expect(try again.integrityCheck() == ["ok"])
    }

    @Test("create: false on a missing file is no_store and creates nothing")
    func missingFile() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("none.sqlite")
        #expect(throws: TranscriptsError.noStore("nothing at \(path)")) {
            try SQLiteTranscriptStore(path: path, create: false)
        }
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("a file that is not a database is malformed_data")
    func notADatabase() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("junk.sqlite")
        try String(repeating: "this is not sqlite\n", count: 200).write(toFile: path, atomically: true, encoding: .utf8)
        #expect { try SQLiteTranscriptStore(path: path) } throws: { ($0 as? TranscriptsError)?.code == "malformed_data" }
    }

    @Test("a store from a newer audiograph (higher user_version) is malformed_data, not migrated down")
    func newerSchema() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("new.sqlite")
        let database = try SQLiteDatabase(path: path)
        try database.setUserVersion(SQLiteTranscriptStore.schemaVersion + 1)
        database.close()
        #expect { try SQLiteTranscriptStore(path: path) } throws: { ($0 as? TranscriptsError)?.code == "malformed_data" }
    }

    @Test("migrations run from version 0 in one transaction and only once")
    func migrations() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("m.sqlite")
        _ = try SQLiteTranscriptStore(path: path)
        let database = try SQLiteDatabase(path: path, create: false)
        #expect(try database.userVersion == SQLiteTranscriptStore.schemaVersion)
        let tables = try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        #expect(tables == [[.text("access_tokens")], [.text("session_participants")], [.text("sessions")],
                           [.text("transcripts")], [.text("utterances")], [.text("work_items")]])
        database.close()
        _ = try SQLiteTranscriptStore(path: path)  // a second open does not re-run them (CREATE TABLE would fail)
    }

    @Test("a version 3 queue is upgraded in place: its items stay claimable, without a pipeline")
    func upgradeFromVersion3() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("v3.sqlite")
        let old = try SQLiteDatabase(path: path, create: true)
        for migration in SQLiteTranscriptStore.migrations[0..<3] { try old.execute(migration) }
        try old.setUserVersion(3)
        try old.run("INSERT INTO work_items (key, path) VALUES ('old', '/old.wav')")
        old.close()
        let store = try SQLiteTranscriptStore(path: path)
        #expect(try store.storedSchemaVersion() == SQLiteTranscriptStore.schemaVersion)
        let claim = try #require(try store.claim(worker: "w", lease: 60, maxAttempts: 3))
        #expect(claim.item == WorkItem(key: "old", path: "/old.wav"))
        #expect(claim.item.pipeline == nil)
    }

    @Test("a version 1 store is upgraded in place: its rows stay, and its sessions have no participants")
    func upgradeFromVersion1() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("v1.sqlite")
        let old = try SQLiteDatabase(path: path, create: true)
        try old.execute(SQLiteTranscriptStore.migrations[0])
        try old.setUserVersion(1)
        try old.run("INSERT INTO sessions (session_id, start_time, has_transcription) VALUES ('old', 5, 0)")
        old.close()
        let store = try SQLiteTranscriptStore(path: path)
        #expect(try store.storedSchemaVersion() == SQLiteTranscriptStore.schemaVersion)
        #expect(try store.sessions(after: nil, limit: 10, transcribedOnly: false).count == 1)
        #expect(try !store.isParticipant("root", sessionID: "old"))
        let key = try store.createSession(NewSession(sessionID: "new", startTime: 6, participants: ["ann", "ann", "bo"]))
        #expect(try store.isParticipant("ann", sessionID: "new") && store.isParticipant("bo", sessionID: "new"))
        #expect(try store.sessions(participant: "ann", after: nil, offset: 0, limit: 10, transcribedOnly: false).map(\.key) == [key])
        #expect(try store.sessions(participant: "ann", after: key, offset: 0, limit: 10, transcribedOnly: false).isEmpty)
    }

    @Test("typed binding and columns round-trip every storage class")
    func bindAndColumns() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let database = try SQLiteDatabase(path: folder.path("t.sqlite"))
        try database.execute("CREATE TABLE t (a, b, c, d, e)")
        let values: [SQLiteValue] = [.null, .integer(Int64.max), .real(-2.5), .text("héllo \"x\" ✓"), .blob([0, 1, 255])]
        try database.run("INSERT INTO t VALUES (?, ?, ?, ?, ?)", values)
        #expect(try database.query("SELECT * FROM t") == [values])
        #expect(database.changes == 1)
    }

    @Test("a transaction rolls back when its body throws")
    func rollback() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let database = try SQLiteDatabase(path: folder.path("t.sqlite"))
        try database.execute("CREATE TABLE t (a UNIQUE)")
        #expect(throws: SQLiteError.self) {
            try database.transaction { () throws(SQLiteError) in
                try database.run("INSERT INTO t VALUES (1)")
                try database.run("INSERT INTO t VALUES (1)")  // constraint violation
            }
        }
        #expect(try database.query("SELECT count(*) FROM t") == [[.integer(0)]])
        do {
            try database.run("INSERT INTO t VALUES (1)")
            try database.run("INSERT INTO t VALUES (1)")
            Issue.record("expected a constraint error")
        } catch {
            #expect(error.message.contains("UNIQUE"), "errors carry sqlite3_errmsg: \(error.message)")
            #expect(error.primaryCode == 19)  // SQLITE_CONSTRAINT
        }
    }

    @Test("page queries are index searches on (session, key) — keyset, no scan, no OFFSET")
    func queryPlans() throws {
        let fixture = try StoreFixture.interleaved(50)
        func plan(_ sql: String) throws -> String {
            try fixture.store.withConnection { db throws(SQLiteError) in
                try db.query("EXPLAIN QUERY PLAN " + sql, [.text("a"), .integer(10), .integer(30)])
                    .compactMap { row in row.last.flatMap { if case .text(let text) = $0 { text } else { nil } } }
                    .joined(separator: "; ")
            }
        }
        let transcripts = try plan("""
            SELECT t.id FROM transcripts t LEFT JOIN sessions s ON s.id = t.session_row
            WHERE t.session_id = ? AND t.id > ? ORDER BY t.id LIMIT ?
            """)
        #expect(transcripts.contains("SEARCH t USING INDEX transcripts_by_session (session_id=? AND id>?)"), "\(transcripts)")
        #expect(!transcripts.contains("TEMP B-TREE"), "no sort step: \(transcripts)")
        let sessions = try fixture.store.withConnection { db throws(SQLiteError) in
            try db.query("EXPLAIN QUERY PLAN SELECT id FROM sessions WHERE has_transcription = 1 AND id > ? ORDER BY id LIMIT ?",
                         [.integer(0), .integer(30)])
        }
        #expect("\(sessions)".contains("sessions_transcribed"), "\(sessions)")
    }

    @Test("transcript(tid:) gives the row and its utterances in order; an unknown tid is nil")
    func transcriptByTID() throws {
        let fixture = try StoreFixture()
        let session = try fixture.store.createSession(NewSession(sessionID: "s", roomName: "r", startTime: 10))
        let key = try fixture.store.beginTranscript(NewTranscript(tid: "t1", sessionKey: session, sessionID: "s",
                                                                  language: "de-DE", startTime: 10, transcriptURL: "u"))
        let first = StoredUtterance(segment: 4, start: 1.25, end: 2.5, text: "hallo welt", confidence: 0.5,
                                    words: [.init(word: "hallo", start: 1.25, end: 1.8), .init(word: "welt", start: 1.9, end: 2.5)],
                                    language: "de-DE")
        let second = StoredUtterance(segment: 5, start: 3, end: 4, text: "zwei", language: "de-DE")
        try fixture.store.appendUtterance(first, transcript: key, time: 12)
        try fixture.store.appendUtterance(second, transcript: key, time: 14)
        let detail = try #require(try fixture.store.detail(tid: "t1"))
        #expect(detail.utterances == [first, second])
        #expect(detail.language == "de-DE")
        #expect(detail.record.endTime == 14 && detail.record.roomName == "r")
        #expect(try fixture.store.detail(tid: "nope") == nil)
        // The flat JSON of `transcripts show --json`: record fields + language + utterances.
        let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(detail)) as? [String: Any]
        #expect(json?["tid"] as? String == "t1")
        #expect((json?["utterances"] as? [Any])?.count == 2)
        #expect(try JSONDecoder().decode(TranscriptDetail.self, from: try JSONEncoder().encode(detail)) == detail)
    }

    @Test("the default location follows XDG_DATA_HOME, else ~/.local/share")
    func defaultLocation() {
        #expect(TranscriptStoreLocation.defaultPath(environment: ["XDG_DATA_HOME": "/data", "HOME": "/home/u"])
            == "/data/audiograph/transcripts.sqlite")
        #expect(TranscriptStoreLocation.defaultPath(environment: ["XDG_DATA_HOME": "relative", "HOME": "/home/u"])
            == "/home/u/.local/share/audiograph/transcripts.sqlite", "a relative XDG_DATA_HOME is ignored (XDG spec)")
        #expect(TranscriptStoreLocation.defaultPath(environment: ["HOME": "/home/u"])
            == "/home/u/.local/share/audiograph/transcripts.sqlite")
        #expect(TranscriptStoreLocation.transcriptFolder(forStoreAt: "/data/x/t.sqlite") == "/data/x/transcripts")
    }

    @Test("ISO 8601 dates of epoch seconds")
    func dates() {
        #expect(StoreTime.iso8601(0) == "1970-01-01T00:00:00Z")
        #expect(StoreTime.iso8601(1_700_000_000) == "2023-11-14T22:13:20Z")
    }
}
