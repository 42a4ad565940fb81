import AudioGraphTestKit
import Foundation
import Testing

/// Exit 0: the commands doing their jobs.
@Suite("audiograph: successful commands (exit 0)")
struct SuccessTests {
    @Test("run resamples a WAV into a 16 kHz mono WAV of the same duration")
    func runWritesOutput() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, sampleRate: 44100, channels: 2, seconds: 1)
        try dir.write("levels.json", Configs.levels())

        let result = try await Harness.audiograph(["run", "levels.json"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty, "without --events stdout stays empty\n\(result)")
        #expect(result.stderr.contains("done"), "\(result)")
        #expect(dir.exists("out/levels.wav"), "wav-sink creates its folder and file")
        let duration = try await Harness.soxi("-D", "out/levels.wav", in: dir)
        #expect(abs(duration - 1.0) < 0.01, "duration \(duration)")
        #expect(try await Harness.soxi("-r", "out/levels.wav", in: dir) == 16000)
        #expect(try await Harness.soxi("-c", "out/levels.wav", in: dir) == 1)
    }

    @Test("run --events jsonl prints one level object per line with the contract's fields")
    func runEventsJSONL() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, sampleRate: 44100, channels: 2, seconds: 1)
        try dir.write("levels.json", Configs.levels())

        let result = try await Harness.audiograph(["run", "levels.json", "--events", "jsonl", "--quiet"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasSuffix("\n"), "every line ends with a newline")
        let lines = result.stdoutLines
        #expect(!lines.isEmpty, "a 1 s file at intervalMs 250 makes level events\n\(result)")
        var lastTime = -1.0
        for line in lines {
            guard let event = parseJSONObject(line) else { continue }
            #expect(event["type"] as? String == "level", "\(line)")
            #expect(event["node"] as? String == "level", "\(line)")
            let time = try #require(event["time"] as? Double, "\(line)")
            #expect(time > lastTime && time <= 1.0 + 1e-6, "times are seconds of stream time, increasing: \(line)")
            lastTime = time
            let level = try #require(event["level"] as? Double, "\(line)")
            #expect((0...1).contains(level), "\(line)")
            let rms = try #require(event["rmsDb"] as? [Double], "\(line)")
            let peak = try #require(event["peakDb"] as? [Double], "\(line)")
            #expect(rms.count == 1 && peak.count == 1, "one value per channel of the mono stream: \(line)")
            // A sine at half scale: peak -6 dBFS, RMS -9 dBFS.
            #expect(abs(peak[0] + 6) < 1, "\(line)")
            #expect(abs(rms[0] + 9) < 1, "\(line)")
        }
        #expect(abs(lastTime - 1.0) < 0.01, "the last reading covers the end of the file\n\(result)")
        #expect(lines.count == 4, "1 s at 250 ms intervals\n\(result)")
    }

    @Test("run --set overrides a node parameter")
    func runSetOverride() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.5)
        try dir.write("levels.json", Configs.levels())

        let result = try await Harness.audiograph(
            ["run", "levels.json", "--set", "rs.sampleRate=8000", "--set=out.path=other.wav", "--quiet"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "--quiet prints nothing on success\n\(result)")
        #expect(!dir.exists("out/levels.wav"))
        #expect(try await Harness.soxi("-r", "other.wav", in: dir) == 8000)
        #expect(abs(try await Harness.soxi("-D", "other.wav", in: dir) - 0.5) < 0.01)
    }

    @Test("validate prints every node and link with its format")
    func validatePrintsFormats() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, sampleRate: 44100, channels: 2, seconds: 0.2)
        try dir.write("levels.json", Configs.levels())

        let result = try await Harness.audiograph(["validate", "levels.json"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("ok: levels.json is valid"), "\(result)")
        #expect(!result.stdout.contains("auto-inserted"), "same formats need no converter\n\(result)")
        #expect(!dir.exists("out/levels.wav"), "validate creates no outputs")
        let lines = result.stdoutLines
        let nodes = ["src", "rs", "level", "out"]
        for node in nodes {
            #expect(lines.contains { $0.trimmingCharacters(in: .whitespaces).hasPrefix(node + " ") }, "node \(node)\n\(result)")
        }
        let links = lines.filter { $0.contains(" -> ") && $0.contains(": ") }
        #expect(links.count == 3, "\(result)")
        for link in links {
            #expect(link.contains("audio ") && link.contains(" Hz"), "every link names its format: \(link)")
        }
        #expect(lines.contains { $0.contains("src -> rs: audio 44100 Hz stereo") }, "\(result)")
        #expect(lines.contains { $0.contains("rs -> level: audio 16000 Hz mono") }, "\(result)")
    }

    @Test("validate marks the resampler it inserts between a 10-channel file and wav-sink")
    func validateAutoInsertedResampler() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("ten.wav", in: dir, sampleRate: 8000, channels: 10, seconds: 0.5)
        try dir.write("ten.json", Configs.direct(input: "ten.wav"))

        let result = try await Harness.audiograph(["validate", "ten.json"], in: dir)
        #expect(result.status == 0, "\(result)")
        let inserted = result.stdoutLines.filter { $0.contains("(auto-inserted)") }
        #expect(inserted.contains { $0.contains("resampler") && $0.contains("10 ch") && $0.contains("8 ch") },
                "the inserted node is listed with its formats\n\(result)")
        #expect(inserted.contains { $0.contains("-> out: audio 8000 Hz 8 ch") }, "\(result)")
        #expect(result.stdout.contains("ok: ten.json is valid"), "\(result)")
    }

    @Test("run --dot writes the resolved graph as a digraph; 10 channels become 8")
    func runWritesDot() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("ten.wav", in: dir, sampleRate: 8000, channels: 10, seconds: 0.5)
        try dir.write("ten.json", Configs.direct(input: "ten.wav"))

        let result = try await Harness.audiograph(["run", "ten.json", "--dot", "graph.dot"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("note: inserted resampler"), "the insertion is noted on stderr\n\(result)")
        let dot = try dir.read("graph.dot")
        #expect(dot.hasPrefix("digraph"), "\(dot)")
        #expect(dot.contains("\"src\" -> "), "\(dot)")
        #expect(dot.contains("-> \"out\""), "\(dot)")
        #expect(dot.contains("style=dashed"), "the auto-inserted node is drawn dashed\n\(dot)")
        #expect(dot.trimmingCharacters(in: .whitespacesAndNewlines).hasSuffix("}"), "\(dot)")
        #expect(try await Harness.soxi("-c", "out.wav", in: dir) == 8)
        #expect(abs(try await Harness.soxi("-D", "out.wav", in: dir) - 0.5) < 0.01)
    }

    @Test("nodes lists the four built-in types")
    func nodesListsBuiltins() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["nodes"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
        let types = result.stdoutLines.compactMap { $0.split(separator: " ").first.map(String.init) }
        for type in ["file-source", "resampler", "level-meter", "wav-sink"] {
            #expect(types.contains(type), "\(result)")
        }
    }

    @Test("inspect resampler shows its parameters and defaults")
    func inspectResampler() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["inspect", "resampler"], in: dir)
        #expect(result.status == 0, "\(result)")
        for parameter in ["sampleRate", "channels", "quality"] {
            #expect(result.stdout.contains(parameter), "\(result)")
        }
        #expect(result.stdout.contains("default \"medium\""), "quality defaults to medium\n\(result)")
    }

    @Test("schema prints a JSON Schema")
    func schemaParses() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["schema"], in: dir)
        #expect(result.status == 0, "\(result)")
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let schema = try #require(object, "\(result)")
        #expect(schema["$schema"] as? String != nil, "\(result)")
        #expect(result.stdout.contains("file-source"), "the schema knows the node types")
    }

    @Test("docs nodes prints the node reference")
    func docsNodes() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["docs", "nodes"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.hasPrefix("# Node reference"), "\(result)")
        #expect(result.stdout.contains("## `wav-sink`"), "\(result)")
    }

    @Test("--version prints the version")
    func version() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["--version"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.wholeMatch(of: /audiograph \d+\.\d+\.\d+\n/) != nil, "\(result)")
    }

    @Test("--help, -h and help print the overview on stdout", arguments: [["--help"], ["-h"], ["help"]])
    func overviewHelp(_ arguments: [String]) async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(arguments, in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("USAGE: audiograph"), "\(result)")
        for command in ["run", "validate", "nodes", "inspect", "schema"] {
            #expect(result.stdout.contains("  \(command) "), "lists \(command)\n\(result)")
        }
        #expect(result.stderr.isEmpty, "\(result)")
    }

    @Test("run --help, run -h and help run print the run usage", arguments: [["run", "--help"], ["run", "-h"], ["help", "run"]])
    func runHelp(_ arguments: [String]) async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(arguments, in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("USAGE: audiograph run CONFIG"), "\(result)")
        #expect(result.stdout.contains("--events jsonl"), "\(result)")
        #expect(result.stderr.isEmpty, "\(result)")
    }
}
