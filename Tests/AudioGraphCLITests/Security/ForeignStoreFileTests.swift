import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 6: read-only commands never write into a file that is not a store. `calls`, `transcripts`,
/// `serve`, `batch status` (and `tokens list`) given another program's SQLite database or an empty file exit 66
/// naming it, and leave it byte-for-byte as it was, with no `-wal` or `-shm` beside it; a store they read is
/// not migrated. Writers (`tokens create` / `revoke`) refuse another program's database the same way.
@Suite("Readers refuse a file that is not a store and leave it unchanged")
struct ForeignStoreFileTests {
    /// Every command that only reads a store, without its `--store`.
    static let readers: [[String]] = [
        ["calls"], ["calls", "--has-transcriptions"], ["transcripts", "list", "--session", "standup"],
        ["transcripts", "show", "t-1"], ["batch", "status"], ["serve", "--listen", "127.0.0.1:0"], ["tokens", "list"],
    ]

    /// Commands that write a store, which add audiograph's tables only to a new or empty database.
    static let writers: [[String]] = [["tokens", "create", "--user", "alice"], ["tokens", "revoke", "--user", "alice"]]

    @Test("another program's SQLite database: exit 66, not one byte changed", arguments: readers)
    func anotherProgramsDatabase(reader: [String]) async throws {
        let dir = try TemporaryFolder()
        let path = dir.path("data/other.sqlite")
        try FileManager.default.createDirectory(atPath: dir.path("data"), withIntermediateDirectories: true)
        let other = try SQLiteDatabase(path: path)
        try other.execute("PRAGMA journal_mode=DELETE; CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('mine')")
        other.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        let result = try await Harness.audiograph(reader + ["--store", path], in: dir)
        expectError(result, exit: 66, at: path)
        #expect(result.stderr.contains("not an audiograph transcript store"), "\(result)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before, "the file was changed")
        #expect(try ReadOnlyRunner.listing(dir.path("data")) == ["other.sqlite"])
    }

    @Test("a writer given another program's SQLite database: exit 66, not one byte changed", arguments: writers)
    func writersRefuseAnotherProgramsDatabase(writer: [String]) async throws {
        try await anotherProgramsDatabase(reader: writer)
    }

    @Test("an empty file: exit 66, still empty", arguments: readers)
    func emptyFile(reader: [String]) async throws {
        let dir = try TemporaryFolder()
        let path = try dir.write("data/empty.sqlite", "")
        let result = try await Harness.audiograph(reader + ["--store", path], in: dir)
        expectError(result, exit: 66, at: path)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)).isEmpty, "the empty file was written")
        #expect(try ReadOnlyRunner.listing(dir.path("data")) == ["empty.sqlite"])
    }

    @Test("a store of an older schema is read, not migrated")
    func olderStoreIsNotMigrated() async throws {
        let dir = try TemporaryFolder()
        let path = dir.path("store/t.sqlite")
        let store = try SQLiteTranscriptStore(path: path)
        _ = try store.createSession(NewSession(sessionID: "old-run", startTime: 1_700_000_000))
        try store.withConnection { database throws(SQLiteError) in
            try database.execute("ALTER TABLE work_items DROP COLUMN pipeline; ALTER TABLE work_items DROP COLUMN pipeline_base")
            try database.setUserVersion(3)
        }
        store.close()
        let result = try await Harness.audiograph(["calls", "--store", path], in: dir)
        #expect(result.status == 0 && result.stdout.contains("old-run"), "\(result)")
        let database = try SQLiteDatabase(readOnlyPath: path)
        defer { database.close() }
        #expect(try database.userVersion == 3, "calls migrated the store")
    }
}
