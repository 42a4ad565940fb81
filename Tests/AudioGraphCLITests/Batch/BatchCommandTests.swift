import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `audiograph batch` and `audiograph worker` on the real binary: local batches (a pool of `--jobs`), manifest
/// errors, the SQLite work queue (enqueue, work, status, a worker killed mid-file), and the PostgreSQL queue
/// when `AUDIOGRAPH_TEST_POSTGRES_URL` is set.
@Suite("audiograph batch / worker", .serialized)
struct BatchCommandTests {
    // MARK: Local batches

    @Test("a local batch with --jobs 2 stores every file's transcript once")
    func localBatch() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(6, in: dir)
        try dir.write("m.jsonl", names.map { "{\"path\": \"\($0)\"}" }.joined(separator: "\n") + "\n")
        try BatchFixtures.writePipeline(in: dir)
        let result = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--jobs", "2", "--json"],
                                                  in: dir)
        #expect(result.status == 0, "\(result)")
        let summary = try BatchFixtures.json(result.stdout)
        #expect(summary["files"] as? Int == 6, "\(result)")
        #expect(summary["done"] as? Int == 6, "\(result)")
        #expect(summary["failed"] as? Int == 0, "\(result)")
        #expect((summary["audioSeconds"] as? Double ?? 0) > 20, "\(result)")
        #expect(result.stderr.contains("audiograph: batch: 6 files: 6 done, 0 failed"), "\(result)")
        let counts = try BatchFixtures.storeCounts(dir.path("t.sqlite"))
        for name in names {
            let session = String(name.dropLast(4))
            #expect(counts[session]?.sessions == 1, "session \(session): \(counts)")
            #expect(counts[session]?.transcripts == 1, "session \(session): \(counts)")
        }
        #expect(counts.count == 6, "\(counts)")
    }

    @Test("a missing file fails with its error, the others are done, exit 75")
    func missingFile() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(2, in: dir)
        try dir.write("m.jsonl", """
            {"path": "\(names[0])", "session": "first", "room": "lab"}
            {"path": "gone.wav"}
            {"path": "\(names[1])"}
            """)
        try BatchFixtures.writePipeline(in: dir)
        let result = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--jobs", "2", "--json"],
                                                  in: dir)
        #expect(result.status == 75, "\(result)")
        let summary = try BatchFixtures.json(result.stdout)
        #expect(summary["files"] as? Int == 3, "\(result)")
        #expect(summary["done"] as? Int == 2, "\(result)")
        #expect(summary["failed"] as? Int == 1, "\(result)")
        let failures = summary["failures"] as? [[String: Any]] ?? []
        #expect(failures.count == 1 && (failures.first?["path"] as? String ?? "").hasSuffix("/gone.wav"), "\(result)")
        #expect(result.stderrLines.contains { $0.hasPrefix("audiograph: failed: ") && $0.contains("gone.wav") && $0.contains("no such file") },
                "\(result)")
        #expect(result.stderr.contains("3 files: 2 done, 1 failed"), "\(result)")
        let counts = try BatchFixtures.storeCounts(dir.path("t.sqlite"))
        #expect(counts["first"]?.sessions == 1 && counts[String(names[1].dropLast(4))]?.sessions == 1, "\(counts)")
    }

    @Test("bad manifest lines exit 65 naming MANIFEST:LINE", arguments: [
        ("{\"path\": \"a.wav\"}\nnot json\n", "m.jsonl:2", "invalid JSON"),
        ("{\"path\": \"a.wav\"}\n\n{\"room\": \"x\"}\n", "m.jsonl:3", "missing \"path\""),
        ("{\"path\": \"a.wav\", \"sesion\": \"s\"}\n", "m.jsonl:1", "unknown key \"sesion\""),
        ("[\"a.wav\"]\n", "m.jsonl:1", "expected an object"),
        ("{\"path\": \"a/x.wav\"}\n{\"path\": \"b/x.wav\"}\n", "m.jsonl:2", "session \"x\""),
    ])
    func badManifest(text: String, location: String, message: String) async throws {
        let dir = try TemporaryFolder()
        try dir.write("m.jsonl", text)
        try BatchFixtures.writePipeline(in: dir)
        let result = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json"], in: dir)
        expectError(result, exit: 65, at: location)
        #expect(result.stderr.contains(message), "\(result)")
    }

    @Test("missing manifest or pipeline exits 66; a pipeline without one file-source exits 65")
    func missingInputs() async throws {
        let dir = try TemporaryFolder()
        try dir.write("m.jsonl", "{\"path\": \"a.wav\"}\n")
        try BatchFixtures.writePipeline(in: dir)
        expectError(try await Harness.audiograph(["batch", "none.jsonl", "--pipeline", "p.json"], in: dir),
                    exit: 66, at: "none.jsonl")
        expectError(try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "none.json"], in: dir),
                    exit: 66, at: "none.json")
        try dir.write("two.json", """
            {"version": 1, "nodes": {"a": {"type": "file-source", "path": "x.wav"}, "b": {"type": "file-source", "path": "y.wav"},
             "m": {"type": "level-meter"}, "n": {"type": "level-meter"}}, "links": ["a -> m", "b -> n"]}
            """)
        let two = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "two.json"], in: dir)
        expectError(two, exit: 65, at: "two.json: nodes")
        expectError(try await Harness.audiograph(["batch", "m.jsonl"], in: dir), exit: 64, at: "--pipeline")
    }

    @Test("Ctrl-C takes no new files, lets the running one finish, exits 130")
    func interrupted() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(3, in: dir)
        try dir.write("m.jsonl", names.map { "{\"path\": \"\($0)\"}" }.joined(separator: "\n"))
        try BatchFixtures.writePipeline(in: dir)
        let batch = try BatchFixtures.Background(["batch", "m.jsonl", "--pipeline", "p.json", "--jobs", "1",
                                                  "--set", "src.realtime=true", "--json"], in: dir)
        // The first file is running once its session row is in the store.
        let started = await eventually {
            FileManager.default.fileExists(atPath: dir.path("t.sqlite"))
                && ((try? BatchFixtures.storeCounts(dir.path("t.sqlite")).count) ?? 0) >= 1
        }
        #expect(started, "\(batch.report())")
        batch.signal(SIGINT)
        let exit = try await batch.exit()
        #expect(exit.status == 130 && !exit.signalled, "\(batch.report())")
        let summary = try BatchFixtures.json(try dir.read(batch.stdoutName))
        #expect(summary["done"] as? Int == 1 && summary["notStarted"] as? Int == 2, "\(batch.report())")
        #expect(try BatchFixtures.storeCounts(dir.path("t.sqlite")).count == 1)
    }

    // MARK: The SQLite queue

    @Test("--enqueue-only, twice, then worker drains the queue; batch status counts",
          .enabled(if: BatchFixtures.sqliteHasQueue, "SQLiteTranscriptStore has no WorkQueue yet"))
    func enqueueThenWork() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(3, in: dir)
        try dir.write("m.jsonl", (names.map { "{\"path\": \"\($0)\"}" } + ["{\"path\": \"gone.wav\"}"]).joined(separator: "\n"))
        try BatchFixtures.writePipeline(in: dir, store: "elsewhere.sqlite")
        for expected in [4, 0] {
            let enqueued = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", "q.sqlite",
                                                         "--enqueue-only", "--json"], in: dir)
            #expect(enqueued.status == 0, "\(enqueued)")
            #expect(try BatchFixtures.json(enqueued.stdout)["enqueued"] as? Int == expected, "\(enqueued)")
        }
        let queued = try BatchFixtures.json(try await Harness.audiograph(["batch", "status", "--store", "q.sqlite", "--json"],
                                                                        in: dir).stdout)
        #expect(queued["queued"] as? Int == 4 && queued["done"] as? Int == 0, "\(queued)")

        let worker = try await Harness.audiograph(["worker", "--store", "q.sqlite", "--pipeline", "p.json", "--jobs", "2",
                                                   "--max-attempts", "2"], in: dir)
        #expect(worker.status == 75, "\(worker)")
        #expect(worker.stderr.contains("retrying") && worker.stderr.contains("attempt 2 of 2"), "\(worker)")
        let status = try await Harness.audiograph(["batch", "status", "--store", "q.sqlite", "--json"], in: dir)
        let counts = try BatchFixtures.json(status.stdout)
        #expect(counts["queued"] as? Int == 0 && counts["running"] as? Int == 0, "\(status)")
        #expect(counts["done"] as? Int == 3 && counts["failed"] as? Int == 1, "\(status)")
        let failures = counts["failures"] as? [[String: Any]] ?? []
        #expect(failures.first?["attempts"] as? Int == 2 && (failures.first?["error"] as? String ?? "").contains("no such file"),
                "\(status)")
        let text = try await Harness.audiograph(["batch", "status", "--store", "q.sqlite"], in: dir)
        #expect(text.stdoutLines.first == "queued 0, running 0, done 3, failed 1", "\(text)")
        // --store overrides the pipeline's store path: every transcript is in the queue's store, once.
        #expect(!dir.exists("elsewhere.sqlite"))
        let stored = try BatchFixtures.storeCounts(dir.path("q.sqlite"))
        #expect(stored.count == 3 && stored.values.allSatisfy { $0.sessions == 1 && $0.transcripts == 1 }, "\(stored)")
    }

    @Test("the queue carries the pipeline: a worker without --pipeline, elsewhere, drains a queue enqueued with one",
          .enabled(if: BatchFixtures.sqliteHasQueue, "SQLiteTranscriptStore has no WorkQueue yet"))
    func workerWithoutPipeline() async throws {
        let dir = try TemporaryFolder()
        // One file: the pipeline's wav-sink has a fixed path, which a batch of several files refuses.
        let names = try await BatchFixtures.makeCalls(1, in: dir)
        try dir.write("m.jsonl", names.map { "{\"path\": \"\($0)\"}" }.joined(separator: "\n") + "\n")
        // The config in a folder of its own, with a relative output path: resolved against the config's folder.
        try FileManager.default.createDirectory(atPath: dir.path("cfg"), withIntermediateDirectories: true)
        try dir.write("cfg/p.json", """
            {"version": 1,
             "nodes": {"src": {"type": "file-source", "path": "placeholder.wav"}, "vad": {"type": "vad"},
                       "asr": {"type": "recognizer", "engine": "pocketsphinx"}, "store": {"type": "transcript-store", "path": "t.sqlite"},
                       "copy": {"type": "wav-sink", "path": "copy.wav"}},
             "links": ["src -> vad -> asr -> store", "src -> copy"]}
            """)
        let enqueued = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "cfg/p.json", "--store", "q.sqlite",
                                                     "--enqueue-only"], in: dir)
        #expect(enqueued.status == 0, "\(enqueued)")
        // The worker runs in another folder, with the config gone: the queue holds the pipeline.
        try FileManager.default.removeItem(atPath: dir.path("cfg/p.json"))
        let elsewhere = try TemporaryFolder()
        let worker = try await Harness.audiograph(["worker", "--store", dir.path("q.sqlite"), "--jobs", "1"],
                                                  in: elsewhere)
        #expect(worker.status == 0, "\(worker)")
        let status = try BatchFixtures.json(try await Harness.audiograph(["batch", "status", "--store", "q.sqlite", "--json"],
                                                                        in: dir).stdout)
        #expect(status["done"] as? Int == 1 && status["failed"] as? Int == 0, "\(status)")
        let stored = try BatchFixtures.storeCounts(dir.path("q.sqlite"))
        #expect(stored.count == 1 && stored.values.allSatisfy { $0.sessions == 1 && $0.transcripts == 1 }, "\(stored)")
        #expect(dir.exists("cfg/copy.wav") && !elsewhere.exists("copy.wav"))
    }

    @Test("an item enqueued without a pipeline needs worker --pipeline: exit 64 naming the item",
          .enabled(if: BatchFixtures.sqliteHasQueue, "SQLiteTranscriptStore has no WorkQueue yet"))
    func itemWithoutPipeline() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(1, in: dir)
        try BatchFixtures.writePipeline(in: dir)
        do {
            let queue = try SQLiteTranscriptStore(path: dir.path("q.sqlite"))
            defer { queue.close() }
            _ = try queue.enqueue([WorkItem(key: "legacy-1", path: dir.path(names[0]), sessionID: "legacy-1")])
        }
        let bare = try await Harness.audiograph(["worker", "--store", "q.sqlite"], in: dir)
        expectError(bare, exit: 64, at: "--pipeline")
        #expect(bare.stderr.contains("legacy-1") && bare.stderr.contains("--pipeline CONFIG"), "\(bare)")
        let given = try await Harness.audiograph(["worker", "--store", "q.sqlite", "--pipeline", "p.json"], in: dir)
        #expect(given.status == 0, "\(given)")
        let stored = try BatchFixtures.storeCounts(dir.path("q.sqlite"))
        #expect(stored["legacy-1"]?.transcripts == 1, "\(stored)")
    }

    @Test("a worker killed mid-file: after its lease expires another worker runs the file again (attempt 2), stored once",
          .enabled(if: BatchFixtures.sqliteHasQueue, "SQLiteTranscriptStore has no WorkQueue yet"))
    func killedWorker() async throws {
        let dir = try TemporaryFolder()
        try await BatchFixtures.killedWorker(store: "q.sqlite", in: dir)
    }

    @Test("worker --wait polls until SIGTERM, then exits 0",
          .enabled(if: BatchFixtures.sqliteHasQueue, "SQLiteTranscriptStore has no WorkQueue yet"))
    func waitingWorker() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(1, in: dir)
        try dir.write("m.jsonl", "{\"path\": \"\(names[0])\", \"session\": \"only\"}\n")
        try BatchFixtures.writePipeline(in: dir)
        let enqueued = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", "q.sqlite",
                                                     "--enqueue-only"], in: dir)
        #expect(enqueued.status == 0, "\(enqueued)")
        let worker = try BatchFixtures.Background(["worker", "--store", "q.sqlite", "--pipeline", "p.json", "--wait",
                                                   "--jobs", "1"], in: dir)
        // Its only file is done: from here it polls the empty queue until SIGTERM.
        #expect(try await BatchFixtures.waitForStatus(in: dir, store: "q.sqlite") { $0["done"] as? Int == 1 })
        worker.signal(SIGTERM)
        let exit = try await worker.exit()
        #expect(exit.status == 0 && !exit.signalled, "\(worker.report())")
    }

    // MARK: PostgreSQL

    @Test("the killed-worker test against PostgreSQL (AUDIOGRAPH_TEST_POSTGRES_URL)",
          .enabled(if: BatchFixtures.postgresURL != nil, "AUDIOGRAPH_TEST_POSTGRES_URL is not set (scripts/start-postgres.sh)"))
    func killedWorkerPostgres() async throws {
        let dir = try TemporaryFolder()
        let server = try #require(BatchFixtures.postgresURL)
        // A schema of its own (search_path in the URL), dropped afterwards: the queue's counts are this test's.
        let schema = "ag_batch_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnection(url: server)
        defer { admin.close() }
        try admin.executeScript("CREATE SCHEMA \(schema)")
        defer { try? admin.executeScript("DROP SCHEMA \(schema) CASCADE") }
        let url = server + (server.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        try await BatchFixtures.killedWorker(store: url, in: dir)
    }
}

enum BatchFixtures {
    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["AUDIOGRAPH_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the SQLite store has a work queue in this build.
    static var sqliteHasQueue: Bool {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("audiograph-queue-\(UUID().uuidString).sqlite").path
        defer {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        }
        guard let store = try? SQLiteTranscriptStore(path: path) else { return false }
        defer { store.close() }
        return (store as any TranscriptStore) is any WorkQueue
    }

    static let callFLAC = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/audio/call.flac").path

    /// `count` 4-second pieces of the bundled call (speech), `call0.wav` …, made with sox.
    static func makeCalls(_ count: Int, in dir: TemporaryFolder) async throws -> [String] {
        var names: [String] = []
        for index in 0..<count {
            let name = "call\(index).wav"
            let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                               ["sox", callFLAC, "-r", "16000", "-c", "1", name, "trim",
                                                "\(index % 5 * 4)", "4"], in: dir)
            guard result.status == 0 else { throw HarnessError("sox failed: \(result.stderr)") }
            names.append(name)
        }
        return names
    }

    /// `long.wav`: a 4 s `makeCalls` file twice (speech), then `silence` seconds of silence, for a worker that reads
    /// in real time and must still be mid-file when it is killed. Timing cannot decide that: the worker reads for
    /// minutes, however late a loaded machine lets a poll see its session row (28 s of speech was once done first,
    /// in 35 s, under CI load), and the worker that runs the file again reads the silence in about 2 s (debug build,
    /// idle: the VAD passes none of it to the recognizer).
    static func makeLongCall(in dir: TemporaryFolder, silence: Int = 600) async throws -> String {
        let names = try await makeCalls(1, in: dir)
        let sox = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["sox", names[0], "long.wav", "repeat", "1", "pad", "0", String(silence)], in: dir)
        guard sox.status == 0 else { throw HarnessError("sox failed: \(sox.stderr)") }
        return "long.wav"
    }

    /// `p.json`: file-source → vad → recognizer → transcript-store at `store`.
    static func writePipeline(in dir: TemporaryFolder, store: String = "t.sqlite") throws {
        try dir.write("p.json", """
            {"version": 1,
             "nodes": {"src": {"type": "file-source", "path": "placeholder.wav"}, "vad": {"type": "vad"},
                       "asr": {"type": "recognizer", "engine": "pocketsphinx"}, "store": {"type": "transcript-store", "path": "\(store)"}},
             "links": ["src -> vad -> asr -> store"]}
            """)
    }

    static func json(_ text: String) throws -> [String: Any] {
        guard let data = text.data(using: .utf8),
              let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw HarnessError("not a JSON object: \(text)")
        }
        return object
    }

    /// Per session id: how many session rows and transcripts the store holds, read as `audiograph transcripts` reads
    /// it (nothing created, migrated or written while a worker may be writing).
    static func storeCounts(_ location: String) throws -> [String: (sessions: Int, transcripts: Int)] {
        let store = try TranscriptStores.openForReading(location: location)
        defer { store.close() }
        var counts: [String: (sessions: Int, transcripts: Int)] = [:]
        var after: Int64?
        while true {
            let rows = try store.sessions(after: after, limit: 1000, transcribedOnly: false)
            guard let last = rows.last else { break }
            for row in rows {
                let id = row[StoreColumn.sessionID]?.description ?? ""
                counts[id, default: (0, 0)].sessions += 1
            }
            after = last.key
        }
        for id in counts.keys {
            counts[id]?.transcripts = try store.transcripts(sessionID: id, after: nil, limit: 1000).count
        }
        return counts
    }

    /// Polls `batch status --json` until `condition` holds (true) or 30 s pass (false).
    static func waitForStatus(in dir: TemporaryFolder, store: String, timeout: Double = 30,
                              _ condition: ([String: Any]) -> Bool) async throws -> Bool {
        try await eventually(timeout: timeout, every: .milliseconds(200)) {
            // A status read takes well under a second; 30 s is a hang (its stacks go into the failure).
            let result = try await Harness.audiograph(["batch", "status", "--store", store, "--json"], in: dir, limit: 30)
            guard result.status == 0, let status = try? json(result.stdout) else { return false }
            return condition(status)
        }
    }

    /// The killed-worker scenario against `store` (a SQLite path or a PostgreSQL URL).
    static func killedWorker(store: String, in dir: TemporaryFolder) async throws {
        // Minutes long (mostly silence): still mid-file when a loaded machine's polls see it running and its
        // session row written.
        let name = try await makeLongCall(in: dir)
        let session = "killed-\(UUID().uuidString.prefix(8))"
        try dir.write("m.jsonl", "{\"path\": \"\(name)\", \"session\": \"\(session)\"}\n")
        try writePipeline(in: dir)
        let enqueued = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", store,
                                                     "--enqueue-only"], in: dir)
        #expect(enqueued.status == 0, "\(enqueued)")
        // The first worker reads the file in real time and is killed part way.
        let first = try Background(["worker", "--store", store, "--pipeline", "p.json", "--set", "src.realtime=true",
                                    "--lease-seconds", "2", "--jobs", "1"], in: dir)
        #expect(try await waitForStatus(in: dir, store: store) { $0["running"] as? Int == 1 }, "\(first.report())")
        // Mid-file: its transcript-store node has written the session row (the run started). Killed at once, not
        // after a fixed wait.
        let location = store.contains("://") ? store : dir.path(store)
        let midFile = await eventually { (try? storeCounts(location))?[session]?.sessions == 1 }
        #expect(midFile, "the worker never wrote the session row: \(first.report())")
        first.signal(SIGKILL)
        #expect(try await first.exit().signalled, "the first worker ended before it was killed: \(first.report())")
        // Its claim holds until the lease (2 s after its last heartbeat) expires: the second worker waits for work
        // (--wait) until then, runs the file again, and is stopped with SIGTERM once the queue says done.
        let second = try Background(["worker", "--store", store, "--pipeline", "p.json", "--lease-seconds", "2", "--wait"],
                                    in: dir)
        // The lease runs out, then the whole file is decoded again on a machine that may be busy: more than the
        // status wait's usual 30 s.
        #expect(try await waitForStatus(in: dir, store: store, timeout: 120) { $0["done"] as? Int == 1 },
                "\(second.report())")
        second.signal(SIGTERM)
        let secondExit = try await second.exit()
        #expect(secondExit.status == 0 && !secondExit.signalled, "\(second.report())")
        #expect(second.report().contains("attempt 2"), "\(second.report())\n\(first.report())")
        let status = try json(try await Harness.audiograph(["batch", "status", "--store", store, "--json"], in: dir).stdout)
        #expect(status["done"] as? Int == 1 && status["running"] as? Int == 0, "\(status)")
        let counts = try storeCounts(store.contains("://") ? store : dir.path(store))
        #expect(counts[session]?.sessions == 1, "\(counts)")
        #expect(counts[session]?.transcripts == 1, "\(counts)")
    }

    /// An `audiograph` process running in the background (stdout and stderr to files in its folder).
    final class Background: Sendable {
        private let process: ChildProcess
        private let task: Task<Harness.Exit, any Error>
        private let dir: TemporaryFolder
        private let name = UUID().uuidString

        init(_ arguments: [String], in dir: TemporaryFolder) throws {
            self.dir = dir
            let process = ChildProcess()
            process.executableURL = try Harness.binary()
            process.arguments = arguments
            process.currentDirectoryURL = dir.url
            process.standardInput = FileHandle.nullDevice
            _ = FileManager.default.createFile(atPath: dir.path(".\(name).out"), contents: nil)
            _ = FileManager.default.createFile(atPath: dir.path(".\(name).err"), contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: dir.url.appendingPathComponent(".\(name).out"))
            process.standardError = try FileHandle(forWritingTo: dir.url.appendingPathComponent(".\(name).err"))
            self.process = process
            task = Task { try await Harness.runToExit(process) }
        }

        func signal(_ number: Int32) {
            process.signal(number)
        }

        func exit() async throws -> Harness.Exit { try await task.value }

        /// The file (in the folder) that holds its stdout.
        var stdoutName: String { ".\(name).out" }

        func report() -> String {
            "stdout:\n" + ((try? dir.read(".\(name).out")) ?? "") + "\nstderr:\n" + ((try? dir.read(".\(name).err")) ?? "")
        }
    }
}
