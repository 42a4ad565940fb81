import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 34, item 10b — "libpq's message shows the part of a password after an unescaped @": libpq ends a URL's
/// user info at its first '@' (or '/'), so `postgres://u:s3cr@tW0rd@host/db` made it look up the host
/// "tW0rd@host" and print that name. A password holding an unescaped '@' or '/' is refused before libpq sees
/// it, saying to percent-encode it ('@' as %40); no message of a failed connection holds any part of the
/// password.
@Suite("security: a failed PostgreSQL connection never prints the password")
struct PostgresPasswordLeakTests {
    static let pieces = ["s3cr", "tW0rd", "s3cr@tW0rd", "s3cr%40tW0rd"]

    static func expectNoPassword(_ result: CLIResult, _ pieces: [String], sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(result.status != 0, "\(result)", sourceLocation: sourceLocation)
        for piece in pieces {
            #expect(!result.stderr.contains(piece) && !result.stdout.contains(piece), "\"\(piece)\" shown: \(result)",
                    sourceLocation: sourceLocation)
        }
    }

    @Test("an unescaped '@' or '/' in the URL's password: refused before connecting, no part of it shown, %40 named",
          arguments: ["postgres://ag_user:s3cr@tW0rd@127.0.0.1:1/ag_db", "postgresql://ag_user:s3cr@tW0rd@localhost/ag_db?sslmode=disable",
                      "postgres://ag_user:s3cr/tW0rd@127.0.0.1:1/ag_db"])
    func unescapedAt(url: String) async throws {
        let dir = try TemporaryFolder()
        for command in [["calls"], ["transcripts", "list", "--session", "x"], ["serve", "--listen", "127.0.0.1:0"]] {
            let result = try await Harness.audiograph(command + ["--store", url], in: dir)
            Self.expectNoPassword(result, Self.pieces)
            #expect(result.stderr.contains("%40"), "says how to write '@': \(result)")
            #expect(result.stderr.contains("ag_user"), "names the URL (password masked): \(result)")
        }
    }

    @Test("a wrong password (with an encoded '@' too) against the real server: no part of it in the message",
          .enabled(if: DistributedFixtures.postgresAvailable, "AUDIOGRAPH_TEST_POSTGRES_URL is not set (scripts/start-postgres.sh)"),
          arguments: ["Wr0ngS3cretPw", "s3cr%40tW0rd"])
    func wrongPassword(password: String) async throws {
        try DistributedFixtures.requirePostgres()
        let server = try #require(BatchFixtures.postgresURL)
        // postgres://user:password@host…: the password swapped for a wrong one.
        let scheme = try #require(server.range(of: "://"))
        let at = try #require(server.range(of: "@", options: .backwards))
        let user = server[scheme.upperBound..<at.lowerBound].split(separator: ":").first.map(String.init) ?? ""
        let url = String(server[..<scheme.upperBound]) + user + ":" + password + String(server[at.lowerBound...])
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["calls", "--store", url], in: dir)
        Self.expectNoPassword(result, password == "Wr0ngS3cretPw" ? ["Wr0ngS3cretPw", "Wr0ng", "S3cret"] : Self.pieces)
        #expect(result.stderr.contains("password authentication failed"), "\(result)")
    }
}
