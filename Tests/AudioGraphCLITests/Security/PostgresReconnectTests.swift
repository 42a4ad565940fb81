import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 34, item 10a — "serve answers 503 to the first request after a database restart": a read whose
/// connection the server dropped (a restart, or our backend terminated) reconnects once and runs again, so the
/// request is answered 200. The backend is ended with `pg_terminate_backend` (what a restart does to every
/// client), picked by an `application_name` of the test's own: the shared cluster and the other tests running
/// on it are left alone.
@Suite("security: serve on PostgreSQL reconnects once after the server dropped it",
       .enabled(if: DistributedFixtures.postgresAvailable, "AUDIOGRAPH_TEST_POSTGRES_URL is not set (scripts/start-postgres.sh)"))
struct PostgresReconnectTests {
    @Test("the serve's backend terminated between two requests: the next request is 200, not 503")
    func serveReconnectsAfterItsBackendEnded() async throws {
        try DistributedFixtures.requirePostgres()
        try await DistributedFixtures.withSchema { schemaURL, admin in
            let name = "ag_reconnect_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "").prefix(12)
            let url = schemaURL + "&application_name=\(name)"
            let store = try PostgresTranscriptStore(url: url)
            _ = try store.createSession(NewSession(sessionID: "standup", startTime: 1_764_430_000, participants: ["alice"]))
            let token = try AccessTokens(store: store).create(user: "alice").token
            store.close()
            let dir = try TemporaryFolder()
            try await ServeProcess.with(["serve", "--store", url, "--listen", "127.0.0.1:0"], in: dir) { server in
                let before = try await ServeHTTP.get(server.url("/v1/calls"), token: token)
                #expect(before.status == 200, "\(before)")
                let ended = try admin.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1",
                                            [name])
                #expect(ended.rows == [["t"]], "serve's one connection, ended: \(ended.rows)")
                for attempt in 1...2 {
                    let after = try await ServeHTTP.get(server.url("/v1/calls"), token: token)
                    #expect(after.status == 200, "request \(attempt) after the backend ended: \(after)")
                    #expect((try? after.json()["calls"] as? [[String: Any]])?.count == 1, "\(after)")
                }
            }
        }
    }
}
