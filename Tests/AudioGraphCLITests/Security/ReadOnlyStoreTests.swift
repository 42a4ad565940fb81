import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 7: a store that may be read but not written can be read. The readers (`calls`,
/// `transcripts list` / `show`, `batch status`, `serve`) work on a `0444` store in a `0555` folder read by
/// another user, and on a read-only mount — a cleanly closed WAL store, so the `-shm` SQLite needs can be
/// neither opened nor created — and create nothing there. A store the user cannot read at all exits 74 (the
/// store cannot be read), not 66 (no store), as docs/store.md lists. See `ReadOnlyRunner` for how root is made
/// to meet the permission bits.
@Suite("Readers read a read-only store")
struct ReadOnlyStoreTests {
    /// Each reader (without `--store`) and a line its output must hold.
    static let readers: [(arguments: [String], expected: String)] = [
        (["calls", "--has-transcriptions"], "standup"),
        (["transcripts", "list", "--session", "standup"], "standup-001"),
        (["transcripts", "show", "standup-000"], "go forward ten meters"),
        (["batch", "status"], "queued 0, running 0, done 0, failed 0"),
    ]

    /// A store in `ro/` with transcripts, closed (no `-wal`, no `-shm`), made `0444` in a `0555` folder.
    private func readOnlyStore(in dir: TemporaryFolder) throws -> ServeFixture {
        let fixture = try ServeFixture.make(in: dir, at: "ro/transcripts.sqlite", standupCount: 3)
        try ReadOnlyRunner.chmod(0o444, fixture.storePath)
        try ReadOnlyRunner.chmod(0o555, dir.path("ro"))
        return fixture
    }

    private func expectUnchanged(_ dir: TemporaryFolder, _ before: Data, _ fixture: ServeFixture,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(try ReadOnlyRunner.listing(dir.path("ro")) == ["transcripts.sqlite"], sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: URL(fileURLWithPath: fixture.storePath)) == before, sourceLocation: sourceLocation)
    }

    @Test("another user with read permission", arguments: 0..<readers.count)
    func anotherUser(reader: Int) async throws {
        let dir = try TemporaryFolder()
        let fixture = try readOnlyStore(in: dir)
        defer { try? ReadOnlyRunner.chmod(0o755, dir.path("ro")) }
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.storePath))
        let (arguments, expected) = Self.readers[reader]
        let result = try await ReadOnlyRunner.run(ReadOnlyRunner.otherUser, arguments + ["--store", fixture.storePath], in: dir)
        #expect(result.status == 0 && result.stdout.contains(expected), "\(result)")
        try expectUnchanged(dir, before, fixture)
    }

    @Test("a read-only mount", .enabled(if: ReadOnlyRunner.readOnlyMountWorks), arguments: 0..<readers.count)
    func readOnlyMount(reader: Int) async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, at: "ro/transcripts.sqlite", standupCount: 3)
        let before = try Data(contentsOf: URL(fileURLWithPath: fixture.storePath))
        let (arguments, expected) = Self.readers[reader]
        let result = try await ReadOnlyRunner.run(ReadOnlyRunner.readOnlyMount(dir.path("ro")),
                                                  arguments + ["--store", fixture.storePath], in: dir)
        #expect(result.status == 0 && result.stdout.contains(expected), "\(result)")
        try expectUnchanged(dir, before, fixture)
    }

    @Test("serve, as another user, answers from a read-only store")
    func serveAsAnotherUser() async throws {
        let dir = try TemporaryFolder()
        let fixture = try readOnlyStore(in: dir)
        defer { try? ReadOnlyRunner.chmod(0o755, dir.path("ro")) }
        let server = try await ServeProcess.start(fixture.serveArguments, in: dir, launcher: ReadOnlyRunner.otherUser)
        let reply = try await ServeHTTP.get(server.url("/v1/sessions/standup/transcripts"), token: fixture.aliceToken)
        let exit = try await server.stop()
        #expect(reply.status == 200, "\(reply)")
        let tids = (try reply.json()["transcripts"] as? [[String: Any]])?.compactMap { $0["tid"] as? String }
        #expect(tids == fixture.standupTids, "\(reply)")
        #expect(exit.isClean, "\(exit)")
    }

    /// Root only: the writer is the store's owner writing a `0444` file, which only root may.
    @Test("serve, as another user, follows a writer that starts after it (from snapshot to the writer's WAL)",
          .enabled(if: ReadOnlyRunner.isRoot))
    func serveFollowsALaterWriter() async throws {
        let dir = try TemporaryFolder()
        let fixture = try readOnlyStore(in: dir)
        defer { try? ReadOnlyRunner.chmod(0o755, dir.path("ro")) }
        let server = try await ServeProcess.start(fixture.serveArguments, in: dir, launcher: ReadOnlyRunner.otherUser)
        func mids() async throws -> [String] {
            let reply = try await ServeHTTP.get(server.url("/v1/calls"), token: fixture.aliceToken)
            return (try reply.json()["calls"] as? [[String: Any]])?.compactMap { $0["mid"] as? String } ?? []
        }
        let before = try await mids()
        // The owner (root here, so the 0444 file does not stop it) starts writing: a -wal and -shm appear.
        let writer = try SQLiteTranscriptStore(path: fixture.storePath)
        _ = try writer.createSession(NewSession(sessionID: "later", startTime: ServeFixture.base + 200_000, participants: ["alice"]))
        let after = try await mids()
        writer.close()
        let exit = try await server.stop()
        #expect(before == ["standup", "shared", "quiet"])
        #expect(after == ["standup", "shared", "quiet", "later"])
        #expect(exit.isClean, "\(exit)")
    }

    @Test("serve on a read-only mount answers", .enabled(if: ReadOnlyRunner.readOnlyMountWorks))
    func serveOnReadOnlyMount() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, at: "ro/transcripts.sqlite", standupCount: 3)
        let server = try await ServeProcess.start(fixture.serveArguments, in: dir,
                                                  launcher: ReadOnlyRunner.readOnlyMount(dir.path("ro")))
        let reply = try await ServeHTTP.get(server.url("/v1/transcripts/standup-000"), token: fixture.aliceToken)
        let exit = try await server.stop()
        #expect(reply.status == 200 && reply.text.contains("go forward ten meters"), "\(reply)")
        #expect(exit.isClean, "\(exit)")
    }

    @Test("a store the user cannot read at all: exit 74 naming it, not 66")
    func unreadableStore() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, at: "ro/transcripts.sqlite", standupCount: 1)
        try ReadOnlyRunner.chmod(0o755, dir.path("ro"))
        try ReadOnlyRunner.chmod(0o000, fixture.storePath)
        defer { try? ReadOnlyRunner.chmod(0o600, fixture.storePath) }
        let result = try await ReadOnlyRunner.run(ReadOnlyRunner.otherUser, ["calls", "--store", fixture.storePath], in: dir)
        expectError(result, exit: 74, at: fixture.storePath)
        #expect(result.stderr.contains("Permission denied"), "\(result)")
    }
}
