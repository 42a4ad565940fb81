import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `audiograph transcripts` and `audiograph calls` against stores made here, and the crash test: a running
/// `audiograph run` with a transcript-store is killed with SIGKILL mid-file, and the store must open cleanly
/// holding every final printed before the kill.
@Suite("audiograph transcripts / calls (Store)")
struct StoreCommandTests {
    /// A store with sessions "alpha" (5 transcripts, the first with two utterances) and "beta" (none).
    private func makeStore(in dir: TemporaryFolder, at name: String = "store/t.sqlite") throws -> [String] {
        let store = try SQLiteTranscriptStore(path: dir.path(name))
        defer { store.close() }
        let alpha = try store.createSession(NewSession(sessionID: "alpha", roomName: "lab", url: "https://m/alpha",
                                                       startTime: 1_700_000_000))
        _ = try store.createSession(NewSession(sessionID: "beta", startTime: 1_700_000_100))
        var tids: [String] = []
        for index in 0..<5 {
            let tid = "alpha-\(index)"
            let key = try store.beginTranscript(NewTranscript(tid: tid, sessionKey: alpha, sessionID: "alpha", language: "en-US",
                                                              startTime: 1_700_000_000 + Int64(index) * 10,
                                                              transcriptURL: "file:///x/\(tid).json"))
            try store.appendUtterance(StoredUtterance(segment: 1, start: 1.2, end: 3.4, text: "go forward ten meters"),
                                      transcript: key, time: 1_700_000_005 + Int64(index) * 10)
            if index == 0 {
                try store.appendUtterance(StoredUtterance(segment: 2, start: 61.5, end: 3725.25, text: "and stop"),
                                          transcript: key, time: 1_700_000_009)
            }
            tids.append(tid)
        }
        try store.endSession(alpha, endTime: 1_700_000_090)
        return tids
    }

    private func jsonArray(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let value = try JSONSerialization.jsonObject(with: Data(text.utf8))
        return try #require(value as? [[String: Any]], sourceLocation: sourceLocation)
    }

    @Test("transcripts list: a page of the session's transcripts, text and --json with the SDK field names")
    func list() async throws {
        let dir = try TemporaryFolder()
        let tids = try makeStore(in: dir)
        let text = try await Harness.audiograph(["transcripts", "list", "--session", "alpha", "--store", "store/t.sqlite"], in: dir)
        #expect(text.status == 0, "\(text)")
        #expect(text.stdoutLines.count == 6, "a header and five rows\n\(text)")
        #expect(text.stdoutLines.first?.hasPrefix("TID") == true)
        #expect(text.stdoutLines.dropFirst().map { String($0.prefix(7)) } == tids)
        #expect(text.stdoutLines[1].contains("2023-11-14 22:13:20Z") && text.stdoutLines[1].hasSuffix("lab"))

        let page = try await Harness.audiograph(["transcripts", "list", "--session", "alpha", "--store", "store/t.sqlite",
                                                 "--limit", "2", "--page", "2", "--json"], in: dir)
        #expect(page.status == 0, "\(page)")
        let records = try jsonArray(page.stdout)
        #expect(records.map { $0["tid"] as? String } == ["alpha-2", "alpha-3"])
        #expect(Set(records[0].keys) == ["tid", "mid", "roomName", "startTime", "endTime", "url", "transcriptDate",
                                         "transcriptUrl", "metaData"])
        #expect(records[0]["mid"] as? String == "alpha" && records[0]["roomName"] as? String == "lab")
        #expect(records[0]["startTime"] as? Int == 1_700_000_020 && records[0]["endTime"] as? Int == 1_700_000_025)
        #expect(records[0]["url"] as? String == "https://m/alpha")
        #expect(records[0]["transcriptUrl"] as? String == "file:///x/alpha-2.json")
        #expect((records[0]["metaData"] as? [String: Any])?["session_row"] as? Int == 1)

        let all = try await Harness.audiograph(["transcripts", "list", "--session", "alpha", "--store", "store/t.sqlite",
                                                "--limit", "2", "--all", "--json", "--timings"], in: dir)
        #expect(try jsonArray(all.stdout).map { $0["tid"] as? String } == tids, "\(all)")
        #expect(all.stderrLines.filter { $0.contains("records in") }.count == 3, "a timing line per page\n\(all)")

        let past = try await Harness.audiograph(["transcripts", "list", "--session", "alpha", "--store", "store/t.sqlite",
                                                 "--page", "9", "--json"], in: dir)
        #expect(past.status == 0, "\(past)")
        #expect(try jsonArray(past.stdout).isEmpty, "\(past)")
        let none = try await Harness.audiograph(["transcripts", "list", "--session", "beta", "--store", "store/t.sqlite"], in: dir)
        #expect(none.status == 0 && none.stdout.isEmpty && none.stderr.contains("no transcripts"), "\(none)")
    }

    @Test("transcripts show: the text with times, and --json with utterances")
    func show() async throws {
        let dir = try TemporaryFolder()
        _ = try makeStore(in: dir)
        let result = try await Harness.audiograph(["transcripts", "show", "alpha-0", "--store", "store/t.sqlite"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutLines == ["[00:01.20 → 00:03.40] go forward ten meters", "[01:01.50 → 1:02:05.25] and stop"])

        let json = try await Harness.audiograph(["transcripts", "show", "alpha-0", "--store", "store/t.sqlite", "--json"], in: dir)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["tid"] as? String == "alpha-0" && object["mid"] as? String == "alpha")
        let utterances = try #require(object["utterances"] as? [[String: Any]])
        #expect(utterances.map { $0["text"] as? String } == ["go forward ten meters", "and stop"])
        #expect(utterances.first?["start"] as? Double == 1.2)

        let missing = try await Harness.audiograph(["transcripts", "show", "nope", "--store", "store/t.sqlite"], in: dir)
        expectError(missing, exit: 66, at: "nope")
    }

    @Test("calls: every session; --has-transcriptions: the transcribed ones with their transcripts")
    func calls() async throws {
        let dir = try TemporaryFolder()
        let tids = try makeStore(in: dir)
        let all = try await Harness.audiograph(["calls", "--store", "store/t.sqlite", "--json"], in: dir)
        #expect(all.status == 0, "\(all)")
        let sessions = try jsonArray(all.stdout)
        #expect(sessions.map { $0["mid"] as? String } == ["alpha", "beta"])
        #expect(sessions.map { ($0["transcripts"] as? [Any])?.count } == [0, 0])
        #expect(sessions.map { $0["hasTranscriptions"] as? Bool } == [true, false])
        #expect(sessions[0]["endTime"] as? Int == 1_700_000_090 && sessions[1]["endTime"] as? Int == 0)

        let transcribed = try await Harness.audiograph(["calls", "--has-transcriptions", "--store", "store/t.sqlite", "--json"], in: dir)
        let only = try jsonArray(transcribed.stdout)
        #expect(only.map { $0["mid"] as? String } == ["alpha"])
        #expect((only[0]["transcripts"] as? [[String: Any]])?.map { $0["tid"] as? String } == tids)

        let text = try await Harness.audiograph(["calls", "--store", "store/t.sqlite"], in: dir)
        #expect(text.stdoutLines.count == 3 && text.stdoutLines[1].hasPrefix("alpha"), "\(text)")
    }

    @Test("the default store: $XDG_DATA_HOME/audiograph/transcripts.sqlite; missing, exit 66 naming it")
    func defaultStore() async throws {
        let dir = try TemporaryFolder()
        let env = URL(fileURLWithPath: "/usr/bin/env")
        let binary = try Harness.binary().path
        let expectedPath = dir.path("xdg/audiograph/transcripts.sqlite")
        let missing = try await Harness.run(env, ["XDG_DATA_HOME=\(dir.path("xdg"))", binary, "calls"], in: dir)
        expectError(missing, exit: 66, at: expectedPath)
        #expect(!FileManager.default.fileExists(atPath: expectedPath), "reading never creates a store")

        _ = try makeStore(in: dir, at: "xdg/audiograph/transcripts.sqlite")
        let found = try await Harness.run(env, ["XDG_DATA_HOME=\(dir.path("xdg"))", binary, "transcripts", "list",
                                                "--session", "alpha", "--json"], in: dir)
        #expect(found.status == 0, "\(found)")
        #expect(try jsonArray(found.stdout).count == 5, "\(found)")
    }

    @Test("a missing store is exit 66 naming the path; a file that is not a store is exit 65")
    func storeErrors() async throws {
        let dir = try TemporaryFolder()
        let missing = try await Harness.audiograph(["transcripts", "list", "--session", "a", "--store", "none.sqlite"], in: dir)
        expectError(missing, exit: 66, at: dir.path("none.sqlite"))
        try dir.write("junk.sqlite", String(repeating: "not a database\n", count: 100))
        let junk = try await Harness.audiograph(["calls", "--store", "junk.sqlite"], in: dir)
        expectError(junk, exit: 65, at: dir.path("junk.sqlite"))
    }

    @Test("bad arguments are exit 64", arguments: [
        ["transcripts"], ["transcripts", "lst"], ["transcripts", "list"], ["transcripts", "list", "--session", ""],
        ["transcripts", "list", "--session", "a", "--limit", "ten"], ["transcripts", "list", "--session", "a", "--page", "0"],
        ["transcripts", "list", "--session", "a", "--page", "2", "--all"], ["transcripts", "show"],
        ["transcripts", "show", "a", "b"], ["transcripts", "show", "a", "--limit", "3"], ["calls", "extra"],
        ["calls", "--has-transcription"],
    ])
    func usage(arguments: [String]) async throws {
        let dir = try TemporaryFolder()
        _ = try makeStore(in: dir, at: "t.sqlite")
        let result = try await Harness.audiograph(arguments + ["--store", "t.sqlite"], in: dir)
        #expect(result.status == 64, "\(result)")
        #expect(result.stdout.isEmpty && result.stderr.hasPrefix("audiograph: "), "\(result)")
    }

    @Test("transcripts --help and calls --help")
    func help() async throws {
        let dir = try TemporaryFolder()
        let transcripts = try await Harness.audiograph(["transcripts", "--help"], in: dir)
        #expect(transcripts.status == 0 && transcripts.stdout.contains("transcripts show TID"))
        #expect(transcripts.stdout.contains("XDG_DATA_HOME"))
        let calls = try await Harness.audiograph(["calls", "--help"], in: dir)
        #expect(calls.status == 0 && calls.stdout.contains("--has-transcriptions"))
        let overview = try await Harness.audiograph(["--help"], in: dir)
        #expect(overview.stdout.contains("  transcripts  List a session's stored transcripts"), "\(overview)")
    }

    // MARK: Real runs

    /// The speech fixtures of the speech tests, each followed by 1.5 s of silence so the VAD splits them.
    private func makeSpeech(_ clips: [String], in dir: TemporaryFolder) async throws {
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AudioGraphSpeechTests/Fixtures")
        var parts: [String] = []
        for (index, clip) in clips.enumerated() {
            let part = "part\(index).wav"
            let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                               ["sox", fixtures.appendingPathComponent(clip + ".wav").path, part, "pad", "0", "1.5"],
                                               in: dir)
            guard result.status == 0 else { throw HarnessError("sox failed: \(result.stderr)") }
            parts.append(part)
        }
        let joined = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"), ["sox"] + parts + ["speech.wav"], in: dir)
        guard joined.status == 0 else { throw HarnessError("sox failed: \(joined.stderr)") }
    }

    private func pipeline(realtime: Bool) -> String {
        """
        {
          "version": 1,
          "session": { "id": "crash-test", "room": "lab", "autoStartTranscription": true },
          "nodes": {
            "src":   { "type": "file-source", "path": "speech.wav", "realtime": \(realtime) },
            "vad":   { "type": "vad" },
            "asr":   { "type": "recognizer", "engine": "pocketsphinx" },
            "store": { "type": "transcript-store", "path": "out/store.sqlite" }
          },
          "links": ["src -> vad -> asr -> store"]
        }
        """
    }

    /// Final transcript texts in `--events jsonl` output, in order.
    private func finals(_ lines: [String]) -> [String] {
        lines.compactMap { line in
            guard let data = line.data(using: .utf8),
                  let event = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                  event["type"] as? String == "transcript", event["final"] as? Bool == true else { return nil }
            return event["text"] as? String
        }
    }

    /// The utterance texts in the crash test's transcript JSON file, read while the run may still be writing
    /// (nil while there is no transcript yet or the store is busy).
    private func fileTextsSoFar(in dir: TemporaryFolder) async -> [String]? {
        guard let store = try? SQLiteTranscriptStore(path: dir.path("out/store.sqlite"), create: false) else { return nil }
        defer { store.close() }
        let request = TranscriptsRequest.Builder().sessionId("crash-test").limit(1).store(store).build()
        guard let record = (try? await request.fetchNext())?.first, let url = URL(string: record.transcriptUrl),
              let data = try? Data(contentsOf: url),
              let document = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let utterances = document["utterances"] as? [[String: Any]] else { return nil }
        return utterances.compactMap { $0["text"] as? String }
    }

    /// Texts of every utterance stored for `session`, in the order written, read through the public API.
    private func storedTexts(_ store: SQLiteTranscriptStore, session: String) async throws -> (records: [TranscriptRecord], texts: [String]) {
        let request = TranscriptsRequest.Builder().sessionId(session).limit(1000).store(store).build()
        let records = try await request.fetchNext()
        var texts: [String] = []
        for record in records {
            texts += try #require(try store.detail(tid: record.tid)).utterances.map(\.text)
        }
        return (records, texts)
    }

    @Test("a finished run: its finals are stored, the session has an end time, the CLI lists and shows them")
    func completedRun() async throws {
        let dir = try TemporaryFolder()
        try await makeSpeech(["goforward", "cards_005"], in: dir)
        try dir.write("run.json", pipeline(realtime: false))
        let run = try await Harness.audiograph(["run", "run.json", "--events", "jsonl", "--quiet"], in: dir)
        #expect(run.status == 0, "\(run)")
        let printed = finals(run.stdoutLines)
        #expect(printed.count == 2, "\(run)")

        let store = try SQLiteTranscriptStore(path: dir.path("out/store.sqlite"), create: false)
        defer { store.close() }
        let stored = try await storedTexts(store, session: "crash-test")
        #expect(stored.texts == printed)
        #expect(stored.records.count == 1 && stored.records[0].roomName == "lab")
        let call = try #require(try await CallLogsRequest.Builder().hasTranscriptions(true).store(store).build().fetchNext().first)
        #expect(call.mid == "crash-test" && call.endTime >= call.startTime && call.endTime > 0)
        #expect(call.transcripts.map(\.tid) == stored.records.map(\.tid))

        let show = try await Harness.audiograph(["transcripts", "show", stored.records[0].tid, "--store", "out/store.sqlite"], in: dir)
        #expect(show.stdoutLines.map { $0.split(separator: "] ", maxSplits: 1).last.map(String.init) } == printed, "\(show)")
        #expect(show.stdoutLines.allSatisfy { $0.wholeMatch(of: /\[\d\d:\d\d\.\d\d → \d\d:\d\d\.\d\d\] .+/) != nil }, "\(show)")
    }

    @Test("SIGKILL mid-file: the store opens cleanly and holds every final written before the kill")
    func crashSafety() async throws {
        let dir = try TemporaryFolder()
        try await makeSpeech(["goforward", "cards_005", "forever_4", "librivox_0870", "librivox_0890"], in: dir)
        try dir.write("crash.json", pipeline(realtime: true))

        let process = ChildProcess()
        process.executableURL = try Harness.binary()
        process.arguments = ["run", "crash.json", "--events", "jsonl", "--quiet"]
        process.currentDirectoryURL = dir.url
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let watcher = PipeReader(stdout)
        let exit = Task { try await Harness.runToExit(process, onStart: { watcher.start() }) }

        // The condition: two finals printed, then the first partial of the utterance after them — the kill
        // lands while that utterance is in progress, mid-file.
        let inProgress = await watcher.waitFor { lines in
            var finalSegments: [Int] = []
            for line in lines {
                guard let data = line.data(using: .utf8),
                      let event = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                      event["type"] as? String == "transcript", let segment = event["segment"] as? Int else { continue }
                if event["final"] as? Bool == true {
                    finalSegments.append(segment)
                } else if finalSegments.count >= 2, segment > finalSegments.max()! {
                    return true
                }
            }
            return false
        }
        #expect(inProgress, "the run ended before two finals and a partial after them")
        // A final is printed by the recognizer's thread and written by the transcript-store node on its own, a
        // moment later: the kill waits until the store's last write (the JSON file, after the database) holds
        // every final printed so far, so what is checked is that a crash keeps what was written.
        let written = finals(watcher.linesSoFar())
        let caughtUp = await eventually { (await fileTextsSoFar(in: dir))?.count ?? 0 >= written.count }
        #expect(caughtUp, "the store never held the \(written.count) finals printed: \(written)")
        process.signal(SIGKILL)
        let status = try await exit.value
        let lines = await watcher.allLines()
        #expect(status.signalled && status.status == SIGKILL, "killed, not exited: \(status)")
        let printed = finals(lines)
        #expect(printed.count >= 2, "\(lines.joined(separator: "\n"))")

        // Opens cleanly (WAL replayed), passes integrity_check, holds the finals written, in the order printed.
        let database = try SQLiteDatabase(path: dir.path("out/store.sqlite"), create: false)
        #expect(try database.integrityCheck() == ["ok"])
        database.close()
        let store = try SQLiteTranscriptStore(path: dir.path("out/store.sqlite"), create: false)
        defer { store.close() }
        let stored = try await storedTexts(store, session: "crash-test")
        // Every final written before the kill is there; any final printed after it and not yet written is not.
        #expect(stored.texts.count >= written.count && printed.starts(with: stored.texts),
                "stored \(stored.texts), printed \(printed), written before the kill \(written)")
        let call = try #require(try await CallLogsRequest.Builder().store(store).build().fetchNext().first)
        #expect(call.mid == "crash-test" && call.endTime == 0 && call.hasTranscriptions, "the killed run never ended")

        // The transcript JSON file is a whole document holding the same utterances.
        let first = try #require(stored.records.first)
        let file = try #require(URL(string: first.transcriptUrl))
        let document = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any]
        let utterances = try #require(document?["utterances"] as? [[String: Any]])
        let fileTexts = utterances.compactMap { $0["text"] as? String }
        #expect(fileTexts.count >= written.count && stored.texts.starts(with: fileTexts), "\(fileTexts)")

        // And the CLI reads it.
        let list = try await Harness.audiograph(["transcripts", "list", "--session", "crash-test", "--store", "out/store.sqlite",
                                                 "--json"], in: dir)
        #expect(list.status == 0, "\(list)")
        #expect(try jsonArray(list.stdout).count == stored.records.count, "\(list)")
    }
}
