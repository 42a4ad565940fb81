import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The distributed batch end to end on the real binary: one PostgreSQL store, a manifest of 40 short files,
/// four `audiograph worker` processes, one of them killed (SIGKILL) mid-file; the store must then hold what a
/// single-process SQLite batch of the same manifest holds. And `audiograph serve` over that PostgreSQL store.
///
/// Needs `AUDIOGRAPH_TEST_POSTGRES_URL` (`scripts/start-postgres.sh`); skipped without it, failed without it
/// when `AUDIOGRAPH_REQUIRE_POSTGRES=1`.
@Suite("distributed batch (PostgreSQL)", .serialized)
struct DistributedBatchTests {
    @Test("40 files, 4 workers, one killed mid-file: every file done once, transcripts equal a SQLite --jobs 1 run",
          .enabled(if: DistributedFixtures.postgresAvailable, "AUDIOGRAPH_TEST_POSTGRES_URL is not set (scripts/start-postgres.sh)"))
    func fourWorkersOneKilled() async throws {
        try DistributedFixtures.requirePostgres()
        let dir = try TemporaryFolder()
        // d00, the first file claimed and so worker A's, is 14 s of speech and 10 min of silence: A reads it in real
        // time and must still be mid-file however late a loaded machine lets the poll below see its session row
        // (with 1–2 s files, A had finished two of them before the kill in a parallel run of the suite; 28 s files
        // were once done first in the other killed-worker tests).
        let names = try await DistributedFixtures.makeShortCalls(40, in: dir, longFirstFile: true)
        try dir.write("m.jsonl", names.map { "{\"path\": \"\($0).wav\", \"session\": \"\($0)\"}" }.joined(separator: "\n") + "\n")
        try DistributedFixtures.writePipeline(in: dir)

        // The reference: the same manifest and pipeline, one process, one file at a time, into SQLite.
        let local = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--jobs", "1", "--json",
                                                  "--quiet"], in: dir)
        #expect(local.status == 0, "\(local)")
        let localSummary = try BatchFixtures.json(local.stdout)
        #expect(localSummary["done"] as? Int == 40 && localSummary["failed"] as? Int == 0, "\(local)")
        let expected = try DistributedFixtures.contents(dir.path("t.sqlite"))
        #expect(expected.count == 40, "\(expected.keys.sorted())")
        let spoken = expected.values.filter { !$0.transcripts.isEmpty }.count
        // Most pieces hold speech, or the comparison below would say little.
        #expect(spoken >= 30, "only \(spoken) of 40 pieces have a transcript in the SQLite run")

        try await DistributedFixtures.withSchema { url, sql in
            let enqueued = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", url,
                                                         "--enqueue-only", "--json"], in: dir)
            #expect(enqueued.status == 0, "\(enqueued)")
            #expect(try BatchFixtures.json(enqueued.stdout)["enqueued"] as? Int == 40, "\(enqueued)")

            // Worker A reads its file in real time (1x) with a 2 s lease: it is the one killed.
            let slow = try BatchFixtures.Background(["worker", "--store", url, "--pipeline", "p.json", "--set",
                                                     "src.realtime=true", "--lease-seconds", "2", "--jobs", "1"], in: dir)
            // Mid-file: its claim is running and its transcript-store node has written the session row.
            var claimed: (key: String, token: String)?
            let midFile = try await eventually {
                let rows = try sql.query("""
                    SELECT w.key, w.token FROM work_items w
                    WHERE w.state = 'running' AND EXISTS (SELECT 1 FROM sessions s WHERE s.session_id = w.key)
                    """).rows
                guard rows.count == 1, let key = rows[0][0], let token = rows[0][1] else { return false }
                claimed = (key, token)
                return true
            }
            let victim = try #require(claimed, "worker A never got mid-file: \(midFile)\n\(slow.report())")
            // Killed at once, 28 s of real time before its file could end.
            slow.signal(SIGKILL)
            let killed = try await slow.exit()
            #expect(killed.signalled && killed.status == SIGKILL, "\(slow.report())")
            // Still A's claim, attempt 1, not done: the kill was mid-file.
            let afterKill = try sql.query("SELECT state, attempts, token FROM work_items WHERE key = $1", [victim.key]).rows
            #expect(afterKill.count == 1 && afterKill[0] == ["running", "1", victim.token],
                    "\(afterKill)\n\(slow.report())")

            // Workers B, C and D share the rest (a long lease: they are never taken over). D waits for new work
            // (--wait) until SIGTERM, so a worker is there to retry the killed file whenever its lease runs out.
            var others: [BatchFixtures.Background] = []
            for wait in [false, false, true] {
                others.append(try BatchFixtures.Background(["worker", "--store", url, "--pipeline", "p.json",
                                                            "--lease-seconds", "15", "--jobs", "1"]
                                                               + (wait ? ["--wait"] : []), in: dir))
            }

            for worker in others.prefix(2) {
                let exit = try await worker.exit()
                #expect(exit.status == 0 && !exit.signalled && !exit.timedOut, "\(worker.report())")
            }
            let allDone = try await eventually {
                try sql.query("SELECT count(*) FROM work_items WHERE state = 'done'").rows.first?.first == "40"
            }
            let pending = try sql.query("SELECT key, state, attempts, worker FROM work_items WHERE state <> 'done'").rows
            #expect(allDone, "not done: \(pending)")
            others[2].signal(SIGTERM)
            let waited = try await others[2].exit()
            #expect(waited.status == 0 && !waited.signalled, "\(others[2].report())")

            // The queue: 40 done, none failed; the killed file took attempt 2, every other file one attempt.
            let status = try await Harness.audiograph(["batch", "status", "--store", url, "--json"], in: dir)
            let counts = try BatchFixtures.json(status.stdout)
            #expect(counts["done"] as? Int == 40 && counts["failed"] as? Int == 0 && counts["queued"] as? Int == 0
                && counts["running"] as? Int == 0, "\(status)")
            let attempts = Dictionary(uniqueKeysWithValues: try sql.query("SELECT key, attempts FROM work_items").rows
                .map { ($0[0] ?? "", $0[1] ?? "") })
            #expect(attempts.count == 40 && attempts[victim.key] == "2", "\(attempts)")
            #expect(attempts.filter { $0.key != victim.key && $0.value != "1" }.isEmpty, "\(attempts)")

            // Each file is reported done exactly once across the four workers; A finished nothing; nothing was
            // taken over from a live worker, and the retry says so.
            let reports = ([slow] + others).map { $0.report() }
            let doneLines = reports.flatMap { $0.split(separator: "\n") }.filter { $0.hasPrefix("audiograph: done: ") }
            let donePaths = doneLines.map { line in
                String(line.dropFirst("audiograph: done: ".count).prefix { $0 != " " })
            }
            #expect(donePaths.count == 40 && Set(donePaths).count == 40, "\(donePaths.sorted())")
            #expect(!reports[0].contains("audiograph: done: "), "\(reports[0])")
            #expect(!reports.contains { $0.contains("result dropped") || $0.contains("failed: ") }, "\(reports)")
            let victimPath = dir.url.appendingPathComponent("\(victim.key).wav").standardizedFileURL.path
            #expect(reports.dropFirst().filter { $0.contains("retrying \(victimPath) (attempt 2 of 3)") }.count == 1,
                    "\(victimPath)\n\(reports.joined(separator: "\n"))")

            // The store: one session row per file, and per session the transcripts (and their utterances' texts) of
            // the single-process SQLite run: the killed file's transcript is complete and not doubled.
            let stored = try DistributedFixtures.contents(url)
            #expect(stored.count == 40, "\(stored.keys.sorted())")
            for name in names {
                #expect(stored[name]?.sessions == 1, "session \(name): \(String(describing: stored[name]))")
                #expect(stored[name]?.transcripts.count ?? -1 <= 1, "session \(name): \(String(describing: stored[name]))")
                #expect(stored[name]?.transcripts == expected[name]?.transcripts,
                        "session \(name): PostgreSQL \(String(describing: stored[name])), SQLite \(String(describing: expected[name]))")
            }
            #expect(stored[victim.key]?.transcripts.count == expected[victim.key]?.transcripts.count,
                    "the killed file \(victim.key): \(String(describing: stored[victim.key]))")
        }
    }

    @Test("serve --store postgres:// answers /v1/calls and /v1/sessions/{id}/transcripts from a batch's store",
          .enabled(if: DistributedFixtures.postgresAvailable, "AUDIOGRAPH_TEST_POSTGRES_URL is not set (scripts/start-postgres.sh)"))
    func serveFromPostgres() async throws {
        try DistributedFixtures.requirePostgres()
        let dir = try TemporaryFolder()
        let names = Array(try await DistributedFixtures.makeShortCalls(5, in: dir).dropFirst(2))
        try dir.write("m.jsonl", names.map { "{\"path\": \"\($0).wav\", \"session\": \"\($0)\"}" }.joined(separator: "\n") + "\n")
        // The batch keeps the pipeline's session block except id, room and autoStartTranscription: participants
        // stay as written (left out, they would be the worker's $USER).
        try DistributedFixtures.writePipeline(in: dir, participants: ["alice", "carol"])

        try await DistributedFixtures.withSchema { url, _ in
            let batch = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", url,
                                                      "--jobs", "2", "--json", "--quiet"], in: dir)
            #expect(batch.status == 0, "\(batch)")
            let stored = try DistributedFixtures.contents(url)
            #expect(Set(stored.keys) == Set(names), "\(stored)")
            let spoken = names.filter { !(stored[$0]?.transcripts.isEmpty ?? true) }
            #expect(!spoken.isEmpty, "\(stored)")

            var tokens: [String: String] = [:]
            for user in ["alice", "bob"] {
                let made = try await Harness.audiograph(["tokens", "create", "--user", user, "--store", url], in: dir)
                #expect(made.status == 0, "\(made)")
                tokens[user] = try #require(made.stdoutLines.last?.split(separator: " ").last.map(String.init), "\(made)")
            }
            let alice = try #require(tokens["alice"])
            let bob = try #require(tokens["bob"])

            try await ServeProcess.with(["serve", "--store", url, "--listen", "127.0.0.1:0"], in: dir) { server in
                let calls = try await ServeHTTP.get(server.url("/v1/calls?limit=100"), token: alice)
                #expect(calls.status == 200, "\(calls)")
                let records = try calls.json()["calls"] as? [[String: Any]] ?? []
                #expect(Set(records.compactMap { $0["mid"] as? String }) == Set(names), "\(calls)")
                for record in records {
                    let mid = record["mid"] as? String ?? ""
                    #expect(record["hasTranscriptions"] as? Bool == !(stored[mid]?.transcripts.isEmpty ?? true), "\(record)")
                }
                let transcribed = try await ServeHTTP.get(server.url("/v1/calls?hasTranscriptions=true&limit=100"), token: alice)
                let transcribedMids = (try transcribed.json()["calls"] as? [[String: Any]] ?? []).compactMap { $0["mid"] as? String }
                #expect(Set(transcribedMids) == Set(spoken), "\(transcribed)")

                for name in names {
                    let page = try await ServeHTTP.get(server.url("/v1/sessions/\(name)/transcripts"), token: alice)
                    #expect(page.status == 200, "\(page)")
                    let body = try page.json()
                    #expect(body["sessionId"] as? String == name, "\(page)")
                    let transcripts = body["transcripts"] as? [[String: Any]] ?? []
                    #expect(transcripts.count == stored[name]?.transcripts.count, "\(name): \(page)")
                    // Each transcript's utterances as served equal the store's.
                    for (index, transcript) in transcripts.enumerated() {
                        let tid = try #require(transcript["tid"] as? String, "\(page)")
                        let one = try await ServeHTTP.get(server.url("/v1/transcripts/\(tid)"), token: alice)
                        #expect(one.status == 200, "\(one)")
                        let texts = (try one.json()["utterances"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
                        #expect(texts == stored[name]?.transcripts[index], "\(name): \(one)")
                    }
                }

                // Bob takes part in none of them.
                let bobCalls = try await ServeHTTP.get(server.url("/v1/calls?limit=100"), token: bob)
                let bobRecords = try bobCalls.json()["calls"] as? [Any]
                #expect(bobCalls.status == 200 && bobRecords?.isEmpty == true, "\(bobCalls)")
                let bobPage = try await ServeHTTP.get(server.url("/v1/sessions/\(names[0])/transcripts"), token: bob)
                #expect(bobPage.status == 404 || bobPage.status == 403, "\(bobPage)")
                let anonymous = try await ServeHTTP.get(server.url("/v1/calls"))
                #expect(anonymous.status == 401, "\(anonymous)")
            }
        }
    }
}

enum DistributedFixtures {
    static var postgresAvailable: Bool {
        BatchFixtures.postgresURL != nil || ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_POSTGRES"] == "1"
    }

    /// With `AUDIOGRAPH_REQUIRE_POSTGRES=1` and no `AUDIOGRAPH_TEST_POSTGRES_URL`: a failure, not a skip.
    static func requirePostgres() throws {
        if BatchFixtures.postgresURL == nil {
            throw HarnessError("AUDIOGRAPH_REQUIRE_POSTGRES=1 but AUDIOGRAPH_TEST_POSTGRES_URL is not set "
                + "(export AUDIOGRAPH_TEST_POSTGRES_URL=\"$(bash scripts/start-postgres.sh)\")")
        }
    }

    /// Runs `body` with the URL of a schema of its own (search_path in the URL, so the queue and the transcripts
    /// are this test's) and a connection to it for reading the queue's rows; drops the schema afterwards.
    static func withSchema(_ body: (String, PostgresConnection) async throws -> Void) async throws {
        let server = try #require(BatchFixtures.postgresURL)
        let schema = "ag_dist_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let admin = try PostgresConnection(url: server)
        defer { admin.close() }
        try admin.executeScript("CREATE SCHEMA \(schema)")
        defer { try? admin.executeScript("DROP SCHEMA \(schema) CASCADE") }
        let url = server + (server.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
        let connection = try PostgresConnection(url: url)
        defer { connection.close() }
        try await body(url, connection)
    }

    /// `count` pieces of the bundled call, `d00.wav` …, 2, 1.75, 1.5, 1.25 and 1 s long in turn, cut with sox at
    /// offsets 0.55 s apart (16 kHz mono); returns the names without `.wav` (the session ids). With
    /// `longFirstFile`, `d00.wav` is instead the call's first 14 s and 10 min of silence (the VAD passes none of it
    /// to the recognizer: a run at full speed reads it in about 2 s, debug build, idle).
    static func makeShortCalls(_ count: Int, in dir: TemporaryFolder, longFirstFile: Bool = false) async throws -> [String] {
        var names: [String] = []
        for index in 0..<count {
            let name = "d" + (index < 10 ? "0" : "") + "\(index)"
            let offset = (Double(index) * 0.55).truncatingRemainder(dividingBy: 21.5)
            let seconds = 2.0 - Double(index % 5) * 0.25
            let cut = if index == 0, longFirstFile {
                ["trim", "0", "14", "pad", "0", "600"]
            } else {
                ["trim", String(format: "%.2f", offset), String(format: "%.2f", seconds)]
            }
            let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                               ["sox", BatchFixtures.callFLAC, "-r", "16000", "-c", "1", "\(name).wav"] + cut,
                                               in: dir)
            guard result.status == 0 else { throw HarnessError("sox failed: \(result.stderr)") }
            names.append(name)
        }
        return names
    }

    /// `p.json`: file-source → vad → recognizer → transcript-store at `t.sqlite` (`--store` replaces it), with
    /// `session.participants` when given.
    static func writePipeline(in dir: TemporaryFolder, participants: [String] = []) throws {
        let session = participants.isEmpty ? ""
            : ", \"session\": {\"participants\": [" + participants.map { "\"\($0)\"" }.joined(separator: ", ") + "]}"
        try dir.write("p.json", """
            {"version": 1\(session),
             "nodes": {"src": {"type": "file-source", "path": "placeholder.wav"}, "vad": {"type": "vad"},
                       "asr": {"type": "recognizer", "engine": "pocketsphinx"}, "store": {"type": "transcript-store", "path": "t.sqlite"}},
             "links": ["src -> vad -> asr -> store"]}
            """)
    }

    /// What a store holds for one session id: its session rows, and per transcript its utterances' texts.
    struct Stored: Equatable, CustomStringConvertible {
        var sessions = 0
        var transcripts: [[String]] = []
        var description: String { "\(sessions) session rows, transcripts \(transcripts)" }
    }

    /// Everything `location` (a SQLite path or a postgres:// URL) holds, by session id.
    static func contents(_ location: String) throws -> [String: Stored] {
        let store = try TranscriptStores.open(location: location, create: false)
        defer { store.close() }
        var stored: [String: Stored] = [:]
        var after: Int64?
        while true {
            let rows = try store.sessions(after: after, limit: 1000, transcribedOnly: false)
            guard let last = rows.last else { break }
            for row in rows { stored[row[StoreColumn.sessionID]?.description ?? "", default: Stored()].sessions += 1 }
            after = last.key
        }
        for id in stored.keys {
            for row in try store.transcripts(sessionID: id, after: nil, limit: 1000) {
                let tid = row[StoreColumn.tid]?.description ?? ""
                let utterances = try store.transcript(tid: tid)?.utterances ?? []
                stored[id]?.transcripts.append(utterances.map(\.text))
            }
        }
        return stored
    }

}
