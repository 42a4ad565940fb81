/// Issue 34, items 1-3: an ordinary second process touching a SQLite store while audiograph writes it (a
/// `sqlite3` query, `audiograph tokens create`, a second `audiograph run` into the store). `serve --run` lost every
/// later final (the `-wal` and `-shm` vanished, the store kept 2 of 11 finals, `end_time` stayed 0, exit 0), a
/// batch or worker on a SQLite queue failed every remaining file ("disk I/O error"), and a token revoked once the
/// pipeline had ended kept working until serve restarted. The cause: a reader opened beside the writer in one
/// process read the database's header with `open()`/`close()`, and closing any descriptor of a file drops the
/// process's POSIX locks on it, SQLite's included (see docs/store.md). The store-level tests are
/// `AudioGraphStoreTests/Security/OutsideProcessTouchTests`.
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Security: a second process touching a SQLite store loses nothing (issue 34, items 1-3)")
struct OutsideTouchCLITests {
    /// What the second process does to the store at `path` (relative to `dir`).
    enum Touch: String, CaseIterable, Sendable, CustomStringConvertible {
        case sqliteQuery, tokensCreate, secondRun

        var description: String { rawValue }

        func perform(store path: String, in dir: TemporaryFolder) async throws {
            switch self {
            case .sqliteQuery:
                let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                                   ["sqlite3", path, "select count(*) from utterances"], in: dir)
                #expect(result.status == 0, "\(result)")
            case .tokensCreate:
                let result = try await Harness.audiograph(["tokens", "create", "--user", "carol", "--store", path], in: dir)
                #expect(result.status == 0, "\(result)")
            case .secondRun:
                try dir.write("second.json", ServeSpeech.config(session: "second", participants: ["carol"], store: path)
                    .replacingOccurrences(of: "\"realtime\": true", with: "\"realtime\": false"))
                let result = try await Harness.audiograph(["run", "second.json", "--quiet"], in: dir)
                #expect(result.status == 0, "\(result)")
            }
        }
    }

    @Test("serve --run: a touch mid-run keeps the -wal, every final shown is stored with the end time; a revocation after the run shows at once",
          arguments: Touch.allCases)
    func serveRun(_ touch: Touch) async throws {
        let dir = try TemporaryFolder()
        try await ServeSpeech.make("speech.wav", times: 2, in: dir)
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try dir.write("live.json", ServeSpeech.config(session: "touched", participants: ["alice"], store: fixture.storePath))
        let server = try await ServeProcess.start(fixture.serveArguments + ["--run", "live.json"], in: dir)
        let finals: [String]
        do {
            let stream = try await ServeEventStream(port: server.port, path: "/v1/sessions/touched/captions",
                                                    token: fixture.aliceToken)
            defer { stream.disconnect() }
            let first = await stream.waitForEvents(timeout: 60) { events in
                events.contains { $0.object?["type"] as? String == "final" }
            }
            try #require(first, "no final before the touch: \(stream.events)")
            try await touch.perform(store: fixture.storePath, in: dir)
            #expect(dir.exists("store/transcripts.sqlite-wal") && dir.exists("store/transcripts.sqlite-shm"),
                    "the -wal and -shm stay under the running pipeline")
            #expect(await stream.waitForEnd(timeout: 120), "the run ends: \(stream.events)")
            finals = stream.events.compactMap(\.object).filter { $0["type"] as? String == "final" }
                .compactMap { $0["text"] as? String }.filter { !$0.allSatisfy(\.isWhitespace) }

            // Item 3: the run has ended, serve goes on; alice's token is checked (and kept), then revoked by another
            // process: the next request is refused.
            let before = try await ServeHTTP.get(server.url("/v1/calls"), token: fixture.aliceToken)
            #expect(before.status == 200, "\(before)")
            let revoked = try await Harness.audiograph(["tokens", "revoke", "--user", "alice", "--store", fixture.storePath],
                                                       in: dir)
            #expect(revoked.status == 0, "\(revoked)")
            let after = try await ServeHTTP.get(server.url("/v1/calls"), token: fixture.aliceToken)
            #expect(after.status == 401, "a revoked token is refused on the next request: \(after)")
            let bob = try await ServeHTTP.get(server.url("/v1/calls"), token: fixture.bobToken)
            #expect(bob.status == 200, "\(bob)")
        } catch {
            _ = try? await server.stop()
            throw error
        }
        let exit = try await server.stop()
        #expect(exit.isClean, "\(exit)")
        #expect(finals.count >= 2, "the call has several sentences: \(finals)")
        let stored = try ServeRunDrainTests.stored("touched", in: fixture.storePath)
        #expect(stored.utterances == finals, "every final shown is stored")
        #expect(stored.endTimes.count == 1 && stored.endTimes.allSatisfy { $0 > 0 }, "the end time is stored: \(stored.endTimes)")
        let check = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["sqlite3", fixture.storePath, "pragma integrity_check"], in: dir)
        #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "ok", "\(check)")
    }

    @Test("batch --jobs 1 and worker on a SQLite queue: a touch after the first file, every file done and stored once",
          arguments: [("batch", Touch.tokensCreate), ("batch", Touch.sqliteQuery), ("worker", Touch.sqliteQuery)])
    func batchAndWorker(_ command: String, _ touch: Touch) async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(12, in: dir)
        let sessions = names.map { "touch-" + $0.dropLast(4) }
        try dir.write("m.jsonl", zip(names, sessions).map { "{\"path\": \"\($0)\", \"session\": \"\($1)\"}" }
            .joined(separator: "\n") + "\n")
        try BatchFixtures.writePipeline(in: dir)
        let arguments: [String]
        if command == "batch" {
            arguments = ["batch", "m.jsonl", "--pipeline", "p.json", "--store", "t.sqlite", "--jobs", "1"]
        } else {
            let enqueued = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", "t.sqlite",
                                                         "--enqueue-only"], in: dir)
            #expect(enqueued.status == 0, "\(enqueued)")
            arguments = ["worker", "--store", "t.sqlite", "--jobs", "1"]
        }
        let running = try BatchFixtures.Background(arguments, in: dir)
        let firstDone = try await eventually(timeout: 60, every: .milliseconds(50)) {
            try await Self.doneSessions(in: dir) >= 1
        }
        #expect(firstDone, "\(running.report())")
        try await touch.perform(store: "t.sqlite", in: dir)
        let exit = try await running.exit()
        #expect(exit.status == 0 && !exit.signalled, "\(running.report())")
        let status = try BatchFixtures.json(try await Harness.audiograph(["batch", "status", "--store", "t.sqlite", "--json"],
                                                                         in: dir).stdout)
        #expect(status["done"] as? Int == 12 && status["failed"] as? Int == 0, "\(status)\n\(running.report())")
        let counts = try BatchFixtures.storeCounts(dir.path("t.sqlite"))
        for session in sessions {
            #expect(counts[session]?.sessions == 1 && counts[session]?.transcripts == 1, "\(session): \(counts)")
        }
    }

    /// Sessions with an end time, read through SQLite's shell (another process, as a user would look).
    static func doneSessions(in dir: TemporaryFolder) async throws -> Int {
        guard dir.exists("t.sqlite") else { return 0 }
        let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                           ["sqlite3", "t.sqlite", "select count(*) from sessions where end_time > 0"], in: dir)
        return Int(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }
}
