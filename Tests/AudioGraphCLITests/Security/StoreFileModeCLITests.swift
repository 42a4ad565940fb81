import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 8, as a user meets it: `audiograph tokens create` on a new store makes the store (which now
/// holds a token hash) `0600` in a `0700` folder, not world-readable `0644` in `0755`.
@Suite("A store the CLI creates is private")
struct StoreFileModeCLITests {
    private func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int) & 0o777
    }

    @Test("tokens create on a new store: the file 0600, its new folder 0700")
    func tokensCreateMakesAPrivateStore() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["tokens", "create", "--user", "alice", "--store", "new/t.sqlite"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(try mode(dir.path("new/t.sqlite")) == 0o600)
        #expect(try mode(dir.path("new")) == 0o700)
    }
}
