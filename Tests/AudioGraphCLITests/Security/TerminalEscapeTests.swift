import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 10 — "Terminal escapes": a config may not put control characters in session ids, rooms or
/// participant names (exit 65 at the JSON path), nor a batch manifest in its sessions and rooms; and what a
/// store already holds (written by an older version, or straight into the database) is printed by `calls` and
/// `transcripts` with its control characters escaped, as are error messages that quote user input.
@Suite("security: control characters never reach the terminal raw")
struct TerminalEscapeTests {
    static let escape = "\u{1B}"

    @Test("session.id, room and participants with an escape sequence: validate exits 65 at the JSON path",
          arguments: [("\"id\": \"call\\u001b[2J\"", "session.id"), ("\"room\": \"lab\\u001b]0;x\\u0007\"", "session.room"),
                      ("\"participants\": [\"ann\", \"bob\\n\"]", "session.participants[1]")])
    func refusedInConfig(session: String, location: String) async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("c.json", Configs.direct(input: "in.wav", extraTopLevel: "\n  \"session\": {\(session)},"))
        let result = try await Harness.audiograph(["validate", "c.json"], in: dir)
        expectError(result, exit: 65, at: location)
        #expect(!result.stderr.contains(Self.escape), "\(result)")
    }

    @Test("a batch manifest's session and room with control characters: exit 65 at the line")
    func refusedInManifest() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("a.wav", in: dir, seconds: 0.2)
        try dir.write("p.json", Configs.direct(input: "x.wav", output: "unused.wav")
            .replacingOccurrences(of: "\"out\": { \"type\": \"wav-sink\", \"path\": \"unused.wav\" }",
                                  with: "\"out\": { \"type\": \"level-meter\" }"))
        for line in ["{\"path\": \"a.wav\", \"session\": \"s\\u001b[2J\"}", "{\"path\": \"a.wav\", \"room\": \"r\\u009b\"}"] {
            try dir.write("m.jsonl", line + "\n")
            let result = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--quiet"], in: dir)
            expectError(result, exit: 65, at: "m.jsonl:1")
            #expect(!result.stderr.contains(Self.escape) && !result.stderr.contains("\u{9B}"), "\(result)")
        }
    }

    @Test("calls and transcripts print a stored session's control characters escaped")
    func storedNamesEscaped() async throws {
        let dir = try TemporaryFolder()
        let store = try SQLiteTranscriptStore(path: dir.path("t.sqlite"))
        let session = "evil\u{1B}[2J"
        let key = try store.createSession(NewSession(sessionID: session, roomName: "room\u{1B}]0;pwned\u{07}",
                                                     startTime: 1_700_000_000))
        let transcript = try store.beginTranscript(NewTranscript(tid: "t1", sessionKey: key, sessionID: session,
                                                                 language: "en-US", startTime: 1_700_000_000,
                                                                 transcriptURL: "file:///x/t1.json"))
        try store.appendUtterance(StoredUtterance(segment: 1, start: 0, end: 1, text: "hello\u{1B}[31m red\nfake line"),
                                  transcript: transcript, time: 1_700_000_001)
        store.close()
        let runs: [[String]] = [["calls", "--store", "t.sqlite"], ["calls", "--has-transcriptions", "--store", "t.sqlite"],
                                ["transcripts", "list", "--session", session, "--store", "t.sqlite"],
                                ["transcripts", "show", "t1", "--store", "t.sqlite"]]
        for arguments in runs {
            let result = try await Harness.audiograph(arguments, in: dir)
            #expect(result.status == 0, "\(result)")
            #expect(!result.stdout.contains(Self.escape) && !result.stdout.contains("\u{07}"), "\(result)")
        }
        let calls = try await Harness.audiograph(["calls", "--store", "t.sqlite"], in: dir)
        #expect(calls.stdout.contains("evil\\x1B[2J") && calls.stdout.contains("room\\x1B]0;pwned\\x07"), "\(calls)")
        let show = try await Harness.audiograph(["transcripts", "show", "t1", "--store", "t.sqlite"], in: dir)
        #expect(show.stdoutLines.count == 1 && show.stdout.contains("hello\\x1B[31m red\\nfake line"), "\(show)")
    }

    @Test("an error quoting user input escapes it")
    func errorsEscaped() async throws {
        let dir = try TemporaryFolder()
        try SQLiteTranscriptStore(path: dir.path("t.sqlite")).close()
        let result = try await Harness.audiograph(["transcripts", "list", "--session", "no\u{1B}[2Jbody",
                                                   "--store", "t.sqlite"], in: dir)
        #expect(result.stderr.contains("no\\x1B[2Jbody") && !result.stderr.contains(Self.escape), "\(result)")
        let unknown = try await Harness.audiograph(["ru\u{1B}[2Jn"], in: dir)
        #expect(unknown.status == 64 && !unknown.stderr.contains(Self.escape), "\(unknown)")
    }
}
