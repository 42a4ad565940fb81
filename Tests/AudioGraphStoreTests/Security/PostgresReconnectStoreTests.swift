import AudioGraphStore
import Foundation
import Testing

/// Issue 34, item 10a, on the store: a read whose connection the server dropped (here: our backend ended with
/// `pg_terminate_backend`, what a restart does to every client; picked by an `application_name` of the
/// test's own, so nothing else on the shared cluster is touched) reconnects once and is answered. The reconnect
/// sets the session up again (a reader stays `READ ONLY`), and a write is never run twice.
@Suite("security: a PostgreSQL store reconnects once for a read", .enabled(if: StoreBackend.postgresEnabled))
struct PostgresReconnectStoreTests {
    /// Ends the backend(s) of connections named `name`; returns how many.
    static func terminate(_ name: String, through admin: PostgresConnection) throws -> Int {
        try admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1", [name]).rows.count
    }

    @Test("after the backend ended: a read is answered, a reader is still read-only, a write fails once and is not retried")
    func readsReconnect() throws {
        let fixture = try TestStore(.postgres)
        let server = try #require(StoreBackend.postgresURL)
        let admin = try PostgresConnection(url: server)
        defer { admin.close() }
        _ = try fixture.store.createSession(NewSession(sessionID: "kept", startTime: 1_764_430_000, participants: ["ann"]))
        let name = "ag_reconnect_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
        let url = fixture.location + "&application_name=\(name)"
        let writerURL = fixture.location + "&application_name=\(name)_w"

        let reader = try TranscriptStores.openForReading(location: url)
        defer { reader.close() }
        #expect(try reader.sessions(after: nil, limit: 10, transcribedOnly: false).count == 1)
        #expect(try Self.terminate(name, through: admin) == 1)
        #expect(try reader.sessions(after: nil, limit: 10, transcribedOnly: false).count == 1, "the first read after the drop")
        #expect(try reader.isParticipant("ann", sessionID: "kept"))
        // Still READ ONLY on the new connection: a write is refused, and nothing was written.
        #expect(throws: TranscriptsError.self) {
            _ = try reader.createSession(NewSession(sessionID: "written", startTime: 1_764_430_001))
        }
        #expect(try fixture.store.sessions(after: nil, limit: 10, transcribedOnly: false).count == 1)

        let writer = try TranscriptStores.open(location: writerURL)
        defer { writer.close() }
        #expect(try Self.terminate("\(name)_w", through: admin) == 1)
        // A write in flight when the connection dropped fails (store_unavailable), once: it is not run again.
        #expect(throws: TranscriptsError.self) {
            _ = try writer.createSession(NewSession(sessionID: "lost", startTime: 1_764_430_002))
        }
        #expect(try fixture.store.sessions(after: nil, limit: 10, transcribedOnly: false).count == 1)
        // The next call reconnects.
        _ = try writer.createSession(NewSession(sessionID: "after", startTime: 1_764_430_003))
        #expect(try fixture.store.sessions(after: nil, limit: 10, transcribedOnly: false).count == 2)
    }
}
