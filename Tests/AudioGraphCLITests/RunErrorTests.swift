import AudioGraphTestKit
import Foundation
import Testing

/// Exits 65, 66, 69, 73 and 74: bad configs, missing inputs, unavailable features and output failures.
/// Errors go to stderr as `audiograph: <where>: <what>`; stdout stays empty unless `--events jsonl` asked
/// for the error event of a run-time failure.
@Suite("audiograph: config and run errors")
struct RunErrorTests {
    // MARK: 65 bad config

    @Test("invalid JSON names file, line and column (65)")
    func invalidJSON() async throws {
        let dir = try TemporaryFolder()
        try dir.write("bad.json", "{\n  \"version\": 1,\n  \"nodes\": {,\n}\n")
        for command in ["run", "validate"] {
            let result = try await Harness.audiograph([command, "bad.json"], in: dir)
            expectError(result, exit: 65, at: "bad.json:3:13")
            #expect(result.stderr.contains("audiograph: bad.json:3:13: invalid JSON"), "\(result)")
        }
    }

    @Test("an unknown node type names nodes.<id>.type and suggests the closest (65)")
    func unknownNodeType() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("typo.json", Configs.levels().replacingOccurrences(of: "\"level-meter\"", with: "\"level-metre\""))
        let result = try await Harness.audiograph(["run", "typo.json"], in: dir)
        expectError(result, exit: 65, at: "nodes.level.type")
        #expect(result.stderr.contains("did you mean \"level-meter\""), "\(result)")
        #expect(!dir.exists("out/levels.wav"), "no output for a graph that does not build")
    }

    @Test("a parameter of the wrong type names its JSON path (65)")
    func wrongParameterType() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("wrong.json", Configs.levels().replacingOccurrences(of: "\"sampleRate\": 16000",
                                                                          with: "\"sampleRate\": \"fast\""))
        let result = try await Harness.audiograph(["validate", "wrong.json"], in: dir)
        expectError(result, exit: 65, at: "nodes.rs.sampleRate")
        #expect(result.stderr.contains("\"fast\""), "the message shows the bad value\n\(result)")
    }

    @Test("a wrong-type --set override names the parameter (65)")
    func wrongOverrideType() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("levels.json", Configs.levels())
        let result = try await Harness.audiograph(["run", "levels.json", "--set", "level.intervalMs=often"], in: dir)
        expectError(result, exit: 65, at: "nodes.level.intervalMs")
    }

    @Test("strictFormats rejects a 10-channel file into wav-sink, naming both nodes (65)")
    func strictFormatMismatch() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("ten.wav", in: dir, sampleRate: 8000, channels: 10, seconds: 0.2)
        try dir.write("strict.json", Configs.direct(input: "ten.wav", strictFormats: true))
        for command in ["run", "validate"] {
            let result = try await Harness.audiograph([command, "strict.json"], in: dir)
            expectError(result, exit: 65, at: "links[0]")
            let line = result.stderrLines.first { $0.hasPrefix("audiograph: links[0]: ") } ?? ""
            #expect(line.contains("\"src\"") && line.contains("\"out\""), "names both nodes: \(line)")
            #expect(line.contains("10 ch"), "names the format: \(line)")
        }
        #expect(!dir.exists("out.wav"))
    }

    @Test("build errors print no error event even with --events jsonl (65)")
    func buildErrorWithEvents() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("typo.json", Configs.levels().replacingOccurrences(of: "\"resampler\"", with: "\"resampeler\""))
        let result = try await Harness.audiograph(["run", "typo.json", "--events", "jsonl"], in: dir)
        expectError(result, exit: 65, at: "nodes.rs.type")
    }

    // MARK: 66 missing input

    @Test("a missing config file (66)", arguments: ["run", "validate"])
    func missingConfigFile(_ command: String) async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph([command, "nope.json"], in: dir)
        expectError(result, exit: 66, at: "nope.json")
    }

    @Test("a file-source path that does not exist names nodes.src.path (66)")
    func missingSourceFile() async throws {
        let dir = try TemporaryFolder()
        try dir.write("levels.json", Configs.levels(input: "missing.wav"))
        for command in ["run", "validate"] {
            let result = try await Harness.audiograph([command, "levels.json"], in: dir)
            expectError(result, exit: 66, at: "nodes.src.path")
            #expect(result.stderr.contains("missing.wav"), "\(result)")
        }
        #expect(!dir.exists("out/levels.wav"))
    }

    // MARK: 69 unavailable

    @Test("a plugin the config names that is missing exits 66, one that is not a plugin 69, naming plugins[i]")
    func pluginsMissingOrRefused() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("plugins.json", Configs.direct(input: "in.wav", extraTopLevel: "\n  \"plugins\": [\"x.so\"],"))
        for command in ["run", "validate"] {
            let result = try await Harness.audiograph([command, "plugins.json"], in: dir)
            expectError(result, exit: 66, at: "plugins[0]")
        }
        _ = try dir.write("x.so", "not a library")
        for command in ["run", "validate"] {
            let result = try await Harness.audiograph([command, "plugins.json"], in: dir)
            expectError(result, exit: 69, at: "plugins[0]")
        }
        #expect(!dir.exists("out.wav"))
    }

    // MARK: 73 cannot create output

    @Test("a wav-sink whose folder is a regular file (73)")
    func outputFolderIsAFile() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("blocker", "not a folder\n")
        try dir.write("blocked.json", Configs.direct(input: "in.wav", output: "blocker/out.wav"))

        let result = try await Harness.audiograph(["run", "blocked.json"], in: dir)
        #expect(result.status == 73, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        let line = result.stderrLines.first { $0.hasPrefix("audiograph: ") && $0.contains("blocker/out.wav: ") }
        #expect(line != nil, "audiograph: <output path>: <what>\n\(result)")
        #expect(try dir.read("blocker") == "not a folder\n", "the blocking file is left alone")
    }

    @Test("a run-time failure with --events jsonl prints one error event (73)")
    func outputFailureEvent() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("blocker", "not a folder\n")
        try dir.write("blocked.json", Configs.direct(input: "in.wav", output: "blocker/out.wav"))

        let result = try await Harness.audiograph(["run", "blocked.json", "--events", "jsonl"], in: dir)
        #expect(result.status == 73, "\(result)")
        #expect(result.stderrLines.contains { $0.hasPrefix("audiograph: ") && $0.contains("blocker/out.wav: ") },
                "\(result)")
        let events = result.stdoutLines.compactMap { parseJSONObject($0) }
        let errors = events.filter { $0["type"] as? String == "error" }
        #expect(errors.count == 1, "\(result)")
        #expect(errors.first?["node"] as? String == "out", "\(result)")
        #expect((errors.first?["message"] as? String)?.contains("blocker") == true, "\(result)")
    }

    // MARK: 74 I/O error

    /// A file size limit (RLIMIT_FSIZE, with SIGXFSZ ignored so write(2) fails with EFBIG) lets wav-sink
    /// create its file and then fail part way: a real I/O error, provoked deterministically.
    @Test("a write that fails part way (file size limit) exits 74")
    func writeFailsPartWay() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, sampleRate: 44100, channels: 2, seconds: 2)
        try dir.write("levels.json", Configs.levels())
        // dash counts ulimit -f in 512-byte blocks, bash in 1024: 4-8 KB, far below the 64 KB output.
        let prelude = "trap '' XFSZ; ulimit -f 8"

        let result = try await Harness.audiograph(["run", "levels.json", "--quiet"], in: dir, shellPrelude: prelude)
        #expect(result.status == 74, "\(result)")
        #expect(!result.signalled, "SIGXFSZ is ignored, so the write fails instead\n\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderrLines.contains { $0.hasPrefix("audiograph: /") && $0.contains("/out/levels.wav: cannot write") },
                "audiograph: <output path>: <what>\n\(result)")

        let withEvents = try await Harness.audiograph(["run", "levels.json", "--quiet", "--events", "jsonl"],
                                                      in: dir, shellPrelude: prelude)
        #expect(withEvents.status == 74, "\(withEvents)")
        let last = withEvents.stdoutLines.last.flatMap { parseJSONObject($0) }
        #expect(last?["type"] as? String == "error", "the last event is the error\n\(withEvents)")
        #expect(last?["node"] as? String == "out", "\(withEvents)")
    }
}
