/// Issue 14, item 2: a batch retry deleted other runs' data. The store holds session `sess-alice` from an
/// earlier `audiograph run`; a batch line naming the same session id that fails and is retried used to remove
/// "everything the store holds under its session id", her transcript included. A retry now removes only what
/// its own work item wrote, and a batch line naming a session id the store already holds adds a run of its own
/// beside the earlier ones (docs/scale.md). On SQLite, and on PostgreSQL when `AUDIOGRAPH_TEST_POSTGRES_URL`
/// is set.
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Security: a batch retry keeps other runs of its session id (issue 14 item 2)", .serialized)
struct BatchRetrySessionTests {
    /// SQLite always; PostgreSQL when configured.
    static let backends = BatchFixtures.postgresURL == nil ? ["sqlite"] : ["sqlite", "postgres"]

    @Test("a failing line naming sess-alice, retried (--max-attempts 2), leaves the earlier run's transcript",
          arguments: backends)
    func failedRetryKeepsEarlierRun(_ backend: String) async throws {
        let dir = try TemporaryFolder()
        let store = try SecurityStore(backend, in: dir)
        let alice = try await store.earlierRun(session: "sess-alice", in: dir)
        try dir.write("broken.flac", "fLaC this is not a FLAC stream " + String(repeating: "x", count: 4000))
        try dir.write("m.jsonl", "{\"path\": \"broken.flac\", \"session\": \"sess-alice\"}\n")
        try BatchFixtures.writePipeline(in: dir)
        let batch = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", store.location,
                                                  "--max-attempts", "2", "--jobs", "1"], in: dir)
        #expect(batch.status == 75, "\(batch)")
        #expect(batch.stderr.contains("attempt 2 of 2"), "the line was retried: \(batch)")
        try store.expectKept(alice)
    }

    @Test("a line naming a session id the store holds adds its own run; a retry after a killed worker replaces only that",
          arguments: backends)
    func killedWorkerKeepsEarlierRun(_ backend: String) async throws {
        let dir = try TemporaryFolder()
        let store = try SecurityStore(backend, in: dir)
        let alice = try await store.earlierRun(session: "sess-alice", in: dir)
        // 8 s of call and 10 min of silence, read in real time: the first worker is still mid-file when it is
        // killed, however late on a busy machine the poll below sees its session row (28 s of speech was once
        // done first under CI load).
        let name = try await BatchFixtures.makeLongCall(in: dir)
        try dir.write("m.jsonl", "{\"path\": \"\(name)\", \"session\": \"sess-alice\"}\n")
        try BatchFixtures.writePipeline(in: dir)
        let enqueued = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", store.location,
                                                     "--enqueue-only"], in: dir)
        #expect(enqueued.status == 0, "\(enqueued)")
        // The first worker reads in real time and is killed once its run has written its session row.
        let first = try BatchFixtures.Background(["worker", "--store", store.location, "--set", "src.realtime=true",
                                                  "--lease-seconds", "2", "--jobs", "1"], in: dir)
        // Up to 5 minutes, polled 5 times a second: its file lasts 10 minutes, and under a full test run a worker
        // once took more than the default minute to get there.
        let midFile = await eventually(timeout: 300, every: .milliseconds(200)) {
            (try? BatchFixtures.storeCounts(store.location))?["sess-alice"]?.sessions == 2
        }
        #expect(midFile, "the worker never wrote its session row: \(first.report())")
        first.signal(SIGKILL)
        let killed = try await first.exit()
        #expect(killed.signalled, "the first worker ended before it was killed: \(first.report())")
        let second = try await Harness.audiograph(["worker", "--store", store.location, "--lease-seconds", "2", "--jobs", "1"],
                                                  in: dir)
        #expect(second.status == 0 && second.stderr.contains("attempt 2"), "\(second)")
        let status = try BatchFixtures.json(try await Harness.audiograph(["batch", "status", "--store", store.location,
                                                                          "--json"], in: dir).stdout)
        #expect(status["done"] as? Int == 1, "\(status)")
        // Alice's run and the line's own run, once: the dead attempt's half is gone, hers is not.
        let counts = try BatchFixtures.storeCounts(store.location)
        #expect(counts["sess-alice"]?.sessions == 2 && counts["sess-alice"]?.transcripts == 2, "\(counts)")
        try store.expectKept(alice)
    }
}

/// A store for one test: a SQLite file in the test's folder, or a PostgreSQL schema of its own (dropped when
/// the value goes away).
final class SecurityStore: Sendable {
    let location: String
    private let drop: (@Sendable () -> Void)?

    init(_ backend: String, in dir: TemporaryFolder) throws {
        guard backend == "postgres" else {
            location = dir.path("q.sqlite")
            drop = nil
            return
        }
        let server = try #require(BatchFixtures.postgresURL)
        let schema = "ag_sec_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnection(url: server)
        defer { admin.close() }
        try admin.executeScript("CREATE SCHEMA \(schema)")
        location = server + (server.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        drop = {
            guard let admin = try? PostgresConnection(url: server) else { return }
            try? admin.executeScript("DROP SCHEMA \(schema) CASCADE")
            admin.close()
        }
    }

    deinit { drop?() }

    /// What an earlier run stored: the transcript's tid and its utterances' texts.
    struct Run {
        var tid: String
        var texts: [String]
    }

    /// `audiograph run` of the bundled call under session id `session` into this store; what it stored.
    func earlierRun(session: String, in dir: TemporaryFolder) async throws -> Run {
        let names = try await BatchFixtures.makeCalls(1, in: dir)
        try dir.write("alice.json", """
            {"version": 1, "session": {"id": "\(session)", "autoStartTranscription": true, "participants": ["alice"]},
             "nodes": {"src": {"type": "file-source", "path": "\(names[0])"}, "vad": {"type": "vad"},
                       "asr": {"type": "recognizer", "engine": "pocketsphinx"}, "store": {"type": "transcript-store", "store": "\(location)"}},
             "links": ["src -> vad -> asr -> store"]}
            """)
        let run = try await Harness.audiograph(["run", "alice.json", "--quiet"], in: dir)
        guard run.status == 0 else { throw HarnessError("the earlier run failed: \(run)") }
        let store = try TranscriptStores.open(location: location, create: false)
        defer { store.close() }
        let rows = try store.transcripts(sessionID: session, after: nil, limit: 10)
        guard rows.count == 1, let tid = rows[0][StoreColumn.tid]?.description,
              let texts = try store.transcript(tid: tid)?.utterances.map(\.text), !texts.isEmpty else {
            throw HarnessError("the earlier run stored no transcript with utterances: \(rows)")
        }
        return Run(tid: tid, texts: texts)
    }

    /// The earlier run's transcript is still there, utterance for utterance.
    func expectKept(_ run: Run, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let store = try TranscriptStores.open(location: location, create: false)
        defer { store.close() }
        let kept = try store.transcript(tid: run.tid)
        #expect(kept?.utterances.map(\.text) == run.texts, "the earlier run's transcript \(run.tid) is gone or changed",
                sourceLocation: sourceLocation)
        #expect(try store.isParticipant("alice", sessionID: "sess-alice"), sourceLocation: sourceLocation)
    }
}
