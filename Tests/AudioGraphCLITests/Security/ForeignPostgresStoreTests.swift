import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 6, on PostgreSQL: the readers create no tables in a database without audiograph's (exit 66)
/// and do not migrate an older store (its version stays). Needs `AUDIOGRAPH_TEST_POSTGRES_URL`; skipped
/// without it, failed without it when `AUDIOGRAPH_REQUIRE_POSTGRES=1`.
@Suite("PostgreSQL readers create and migrate nothing", .enabled(if: DistributedFixtures.postgresAvailable))
struct ForeignPostgresStoreTests {
    private func tables(_ connection: PostgresConnection) throws -> [String] {
        try connection.query("""
            SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name
            """).rows.map { $0.first.flatMap { $0 } ?? "" }
    }

    @Test("a database without audiograph's tables: exit 66, still none", arguments: ForeignStoreFileTests.readers)
    func noTablesCreated(reader: [String]) async throws {
        try DistributedFixtures.requirePostgres()
        try await DistributedFixtures.withSchema { url, connection in
            try connection.executeScript("CREATE TABLE notes (text TEXT)")
            let dir = try TemporaryFolder()
            let result = try await Harness.audiograph(reader + ["--store", url], in: dir)
            #expect(result.status == 66, "\(result)")
            #expect(try tables(connection) == ["notes"])
        }
    }

    @Test("an older store: read, and its schema version stays")
    func olderStoreNotMigrated() async throws {
        try DistributedFixtures.requirePostgres()
        try await DistributedFixtures.withSchema { url, connection in
            let store = try PostgresTranscriptStore(url: url)
            _ = try store.createSession(NewSession(sessionID: "old-run", startTime: 1_700_000_000))
            try store.query("ALTER TABLE work_items DROP COLUMN pipeline, DROP COLUMN pipeline_base")
            try store.query("UPDATE audiograph_schema SET version = 1")
            store.close()
            let dir = try TemporaryFolder()
            let result = try await Harness.audiograph(["calls", "--store", url], in: dir)
            #expect(result.status == 0 && result.stdout.contains("old-run"), "\(result)")
            #expect(try connection.query("SELECT version FROM audiograph_schema").rows == [["1"]], "calls migrated the store")
        }
    }
}
