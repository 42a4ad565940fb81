import AudioGraphTestKit
import Foundation
import Testing

/// Issue 34, items 7 and 9. A config read from a stream had no size cap (`validate /dev/zero` grew 350 MB/s
/// until the machine ran out): a config is now at most 16 MiB from a stream or a file, exit 65 naming the
/// limit. A session id holding "/" was accepted and listed by `/v1/calls`, but its transcripts' URL
/// (`/v1/sessions/team%2Fstandup/transcripts`) was a 404 and the page's link failed: it is refused where it
/// is written (65 at `session.id`, or the manifest line), saying which characters a session id may hold.
@Suite("security: a config's size is capped, a session id never holds \"/\"")
struct ConfigSizeAndSessionIDTests {
    @Test("validate and run of an endless stream (/dev/zero through a link) stop at the 16 MiB cap: exit 65")
    func endlessStream() async throws {
        let dir = try TemporaryFolder()
        try FileManager.default.createSymbolicLink(atPath: dir.path("zero.json"), withDestinationPath: "/dev/zero")
        for command in ["validate", "run"] {
            let result = try await Harness.audiograph([command, "zero.json"], in: dir)
            expectError(result, exit: 65, at: "zero.json", mentioning: ["16 MiB"])
        }
    }

    @Test("a config file over 16 MiB is refused before it is read whole (65); one just under the cap is parsed")
    func largeFile() async throws {
        let dir = try TemporaryFolder()
        let big = dir.path("big.json")
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: big))
        try handle.truncate(atOffset: UInt64(16 << 20) + 1)
        try handle.close()
        let result = try await Harness.audiograph(["validate", "big.json"], in: dir)
        expectError(result, exit: 65, at: "big.json", mentioning: ["16 MiB"])
        // Under the cap: read and judged as JSON (a config of spaces then an object).
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("padded.json", String(repeating: " ", count: 1 << 20) + Configs.levels())
        let padded = try await Harness.audiograph(["validate", "padded.json"], in: dir)
        #expect(padded.status == 0, "\(padded)")
    }

    @Test("a session id with \"/\": validate, run and --set exit 65 at session.id saying what is allowed; a batch manifest line too")
    func slashInSessionID() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        let config = Configs.levels().replacingOccurrences(of: "\"id\": \"cli-tests\"", with: "\"id\": \"team/standup\"")
        #expect(config.contains("team/standup"))
        try dir.write("slash.json", config)
        for command in ["validate", "run"] {
            let result = try await Harness.audiograph([command, "slash.json"], in: dir)
            expectError(result, exit: 65, at: "session.id", mentioning: ["\"/\"", "team-standup"])
        }
        try dir.write("plain.json", Configs.levels())
        let set = try await Harness.audiograph(["validate", "plain.json", "--set", "session.id=a/b"], in: dir)
        expectError(set, exit: 65, at: "session.id", mentioning: ["\"/\""])
        let fine = try await Harness.audiograph(["validate", "plain.json", "--set", "session.id=team standup #4 (ünïcode)"], in: dir)
        #expect(fine.status == 0, "any other character is fine: \(fine)")

        try dir.write("m.jsonl", "{\"path\": \"in.wav\", \"session\": \"team/standup\"}\n")
        try dir.write("p.json", Configs.levels())
        let batch = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json"], in: dir)
        #expect(batch.status == 65, "\(batch)")
        #expect(batch.stderr.contains("m.jsonl:1") && batch.stderr.contains("\"/\""), "\(batch)")
    }
}
