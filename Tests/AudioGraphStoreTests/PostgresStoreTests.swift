@testable import AudioGraphStore
import AudioGraphTestKit
import Foundation
import Testing

/// PostgreSQL only: migrations, the URL, errors. Skipped with a note when `AUDIOGRAPH_TEST_POSTGRES_URL` is
/// unset (`scripts/start-postgres.sh` prints one); with `AUDIOGRAPH_REQUIRE_POSTGRES=1` it runs and fails.
@Suite("PostgreSQL store", .enabled(if: StoreBackend.postgresEnabled,
                                    "AUDIOGRAPH_TEST_POSTGRES_URL is unset: PostgreSQL tests skipped (scripts/start-postgres.sh)"))
struct PostgresStoreTests {
    @Test("the server URL is configured")
    func configured() throws {
        #expect(StoreBackend.postgresURL != nil, "set AUDIOGRAPH_TEST_POSTGRES_URL (scripts/start-postgres.sh prints it)")
    }

    @Test("migrations on an empty database, by several processes at once, run once")
    func parallelMigrations() async throws {
        let fixture = try TestStore(.postgres, open: false)
        let location = fixture.location
        let versions = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let store = try PostgresTranscriptStore(url: location)
                    defer { store.close() }
                    return try store.storedSchemaVersion()
                }
            }
            var all: [Int] = []
            for try await version in group { all.append(version) }
            return all
        }
        #expect(versions == Array(repeating: PostgresTranscriptStore.schemaVersion, count: 4))
        let store = try PostgresTranscriptStore(url: location, create: false)
        defer { store.close() }
        let tables = try store.query("""
            SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name
            """).rows.map { $0[0] ?? "" }
        #expect(tables == ["access_tokens", "audiograph_schema", "session_participants", "sessions", "transcripts",
                           "utterances", "work_items"])
        #expect(try store.query("SELECT count(*) FROM audiograph_schema").rows == [["1"]])
    }

    @Test("create: false on a database without the tables is no_store and creates nothing")
    func openWithoutCreate() throws {
        let fixture = try TestStore(.postgres, open: false)
        #expect { try PostgresTranscriptStore(url: fixture.location, create: false) } throws: { error in
            guard case .noStore(let message)? = error as? TranscriptsError else { return false }
            return message.hasPrefix("postgres://") && message.hasSuffix("has no audiograph tables (left unchanged)")
        }
        let store = try PostgresTranscriptStore(url: fixture.location)
        defer { store.close() }
        #expect(try store.storedSchemaVersion() == PostgresTranscriptStore.schemaVersion)
    }

    @Test("a version 1 queue is upgraded in place: its items stay claimable, without a pipeline")
    func upgradeFromVersion1() throws {
        let fixture = try TestStore(.postgres, open: false)
        do {
            let old = try PostgresConnection(url: fixture.location)
            defer { old.close() }
            try old.executeScript("CREATE TABLE audiograph_schema (version INTEGER NOT NULL)")
            try old.executeScript("INSERT INTO audiograph_schema (version) VALUES (1)")
            try old.executeScript(PostgresTranscriptStore.migrations[0])
            try old.executeScript("INSERT INTO work_items (key, path) VALUES ('old', '/old.wav')")
        }
        let store = try PostgresTranscriptStore(url: fixture.location)
        defer { store.close() }
        #expect(try store.storedSchemaVersion() == PostgresTranscriptStore.schemaVersion)
        let claim = try #require(try store.claim(worker: "w", lease: 60, maxAttempts: 3))
        #expect(claim.item == WorkItem(key: "old", path: "/old.wav"))
        #expect(claim.item.pipeline == nil)
    }

    @Test("a schema newer than this version is malformed_data, not migrated down")
    func newerSchema() throws {
        let fixture = try TestStore(.postgres)
        let store = try #require(fixture.store as? PostgresTranscriptStore)
        try store.query("UPDATE audiograph_schema SET version = $1::int", [String(PostgresTranscriptStore.schemaVersion + 1)])
        #expect { try PostgresTranscriptStore(url: fixture.location) } throws: { ($0 as? TranscriptsError)?.code == "malformed_data" }
    }

    @Test("a wrong password is store_unavailable, and no message shows the password")
    func wrongPassword() throws {
        let url = try #require(StoreBackend.postgresURL)
        let secret = "Wr0ng-s3cret-\(UInt32.random(in: 0...UInt32.max))"
        let bad = url.replacingOccurrences(of: #"://([^:/@]+):[^@]*@"#, with: "://$1:\(secret)@", options: .regularExpression)
        #expect(bad.contains(secret))
        do {
            _ = try TranscriptStores.open(location: bad)
            Issue.record("opened with a wrong password")
        } catch {
            #expect(error.code == "store_unavailable")
            #expect(!error.description.contains(secret))
            #expect(error.description.contains("***"))
        }
    }
}

@Suite("Choosing a store by location")
struct StoreLocationTests {
    @Test("postgres:// and postgresql:// are PostgreSQL; anything else is a SQLite path")
    func routing() throws {
        #expect(TranscriptStores.isDatabaseURL("postgres://h/db"))
        #expect(TranscriptStores.isDatabaseURL("PostgreSQL://u@h:5432/db"))
        #expect(!TranscriptStores.isDatabaseURL("/var/lib/postgres/x.sqlite"))
        #expect(!TranscriptStores.isDatabaseURL("postgres.sqlite"))
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let store = try TranscriptStores.open(location: folder.path("a/b.sqlite"))
        defer { store.close() }
        #expect(store is SQLiteTranscriptStore)
        #expect(throws: TranscriptsError.noStore("nothing at \(folder.path("none.sqlite"))")) {
            try TranscriptStores.open(location: folder.path("none.sqlite"), create: false)
        }
    }

    @Test("nothing listens: store_unavailable")
    func unreachable() throws {
        #expect { try TranscriptStores.open(location: "postgresql://u:p4ssw0rd@127.0.0.1:1/none?connect_timeout=2") } throws: { error in
            guard let error = error as? TranscriptsError else { return false }
            return error.code == "store_unavailable" && !error.description.contains("p4ssw0rd")
        }
    }

    @Test("describe masks a URL's password, in the user-info and in a password= parameter")
    func describe() {
        #expect(TranscriptStores.describe(location: "postgres://ann:s3cr%40t@db:5432/x?sslmode=require")
                == "postgres://ann:***@db:5432/x?sslmode=require")
        #expect(TranscriptStores.describe(location: "postgres://db/x?user=ann&password=s3cret&sslmode=require")
                == "postgres://db/x?user=ann&password=***&sslmode=require")
        #expect(TranscriptStores.describe(location: "postgres://ann@db/x") == "postgres://ann@db/x")
        #expect(TranscriptStores.describe(location: "/tmp/x:y@z.sqlite") == "/tmp/x:y@z.sqlite")
        #expect(PostgresConnection.password(in: "postgres://ann:s3cr%40t@db/x") == "s3cr@t")
    }

    @Test("bytea text round-trips")
    func bytea() {
        let bytes: [UInt8] = [0, 1, 0x7f, 0x80, 0xfe, 0xff]
        #expect(PostgresTranscriptStore.byteaText(bytes) == "\\x00017f80feff")
        #expect(PostgresTranscriptStore.bytes(fromBytea: "\\x00017F80feff") == bytes)
        #expect(PostgresTranscriptStore.bytes(fromBytea: "\\x0") == nil)
        #expect(PostgresTranscriptStore.bytes(fromBytea: "abc") == nil)
    }
}
