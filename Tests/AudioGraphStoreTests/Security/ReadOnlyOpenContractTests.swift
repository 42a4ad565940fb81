import AudioGraphStore
import Foundation
import Testing

/// Issue 14, items 6 and 7, on every backend (SQLite, and PostgreSQL when configured):
/// `TranscriptStores.openForReading(location:)` never creates, migrates or writes. A location without a store
/// is `noStore` and is left as it was; an older store is read at its own version; writes through a reader fail
/// and change nothing.
@Suite("Opening for reading never writes (SQLite and PostgreSQL)")
struct ReadOnlyOpenContractTests {
    /// Every table the store's location holds, sorted (SQLite: in the file; PostgreSQL: in the test's schema).
    private func tables(_ fixture: TestStore) throws -> [String] {
        switch fixture.backend {
        case .sqlite:
            let database = try SQLiteDatabase(readOnlyPath: fixture.location)
            defer { database.close() }
            return try database.query("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").map { "\($0[0])" }
        case .postgres:
            let connection = try PostgresConnection(url: fixture.location)
            defer { connection.close() }
            return try connection.query("""
                SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name
                """).rows.map { $0.first.flatMap { $0 } ?? "" }
        }
    }

    @Test("a location without audiograph's tables is noStore, and gets none", arguments: StoreBackend.tested)
    func noTablesAreCreated(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend, open: false)
        if backend == .sqlite {
            // Another program's database: one table of its own.
            try FileManager.default.createDirectory(atPath: (fixture.location as NSString).deletingLastPathComponent,
                                                    withIntermediateDirectories: true)
            let other = try SQLiteDatabase(path: fixture.location)
            try other.execute("PRAGMA journal_mode=DELETE; CREATE TABLE notes (text TEXT)")
            other.close()
        }
        let before = try tables(fixture)
        do {
            let store = try TranscriptStores.openForReading(location: fixture.location)
            store.close()
            Issue.record("a location without a store opened for reading")
        } catch {
            guard case .noStore = error else {
                Issue.record("expected noStore, got \(error)")
                return
            }
        }
        #expect(try tables(fixture) == before)
    }

    @Test("an older store is read at its own version, not migrated", arguments: StoreBackend.tested)
    func olderStoreIsNotMigrated(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let key = try fixture.store.createSession(NewSession(sessionID: "old", startTime: 5))
        // Back one schema version, before the work queue's pipeline columns: SQLite 3, PostgreSQL 1.
        let older = backend == .sqlite ? 3 : 1
        switch backend {
        case .sqlite:
            try (fixture.store as? SQLiteTranscriptStore)?.withConnection { database throws(SQLiteError) in
                try database.execute("ALTER TABLE work_items DROP COLUMN pipeline; ALTER TABLE work_items DROP COLUMN pipeline_base")
                try database.setUserVersion(3)
            }
        case .postgres:
            let postgres = try #require(fixture.store as? PostgresTranscriptStore)
            try postgres.query("ALTER TABLE work_items DROP COLUMN pipeline, DROP COLUMN pipeline_base")
            try postgres.query("UPDATE audiograph_schema SET version = 1")
        }
        fixture.store.close()
        let reader = try TranscriptStores.openForReading(location: fixture.location)
        defer { reader.close() }
        #expect(try reader.sessions(after: nil, limit: 10, transcribedOnly: false).map(\.key) == [key])
        #expect(try storedVersion(fixture) == older)
    }

    /// The schema version at the store's location, read on a connection of its own.
    private func storedVersion(_ fixture: TestStore) throws -> Int {
        switch fixture.backend {
        case .sqlite:
            let database = try SQLiteDatabase(readOnlyPath: fixture.location)
            defer { database.close() }
            return try database.userVersion
        case .postgres:
            let connection = try PostgresConnection(url: fixture.location)
            defer { connection.close() }
            return Int(try connection.query("SELECT version FROM audiograph_schema").rows.first?.first.flatMap { $0 } ?? "") ?? -1
        }
    }

    @Test("a write through a reader fails and changes nothing", arguments: StoreBackend.tested)
    func writesFail(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        _ = try fixture.store.createSession(NewSession(sessionID: "kept", startTime: 5, workItem: "item-1"))
        let reader = try TranscriptStores.openForReading(location: fixture.location)
        defer { reader.close() }
        #expect(throws: TranscriptsError.self) { try reader.createSession(NewSession(sessionID: "new", startTime: 6)) }
        #expect(throws: TranscriptsError.self) { try reader.removeSessions(workItem: "item-1") }
        #expect(try fixture.store.sessions(after: nil, limit: 10, transcribedOnly: false).map { "\($0[StoreColumn.sessionID]!)" }
                == ["kept"])
    }
}
