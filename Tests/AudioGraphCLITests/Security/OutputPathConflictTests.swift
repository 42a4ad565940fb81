import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 3 — "Output = input destroys the input": an output that resolves to the same file as an
/// input (the config file itself included), or an exclusive output that resolves to another output's file, is
/// a config error (exit 65) naming both JSON paths, found before anything is opened, so the input is left byte
/// for byte; symlinks, `..` and hard links count. In a batch, an output path the pipeline fixes would be
/// written by every file, and is refused.
@Suite("security: an output never overwrites an input or another output")
struct OutputPathConflictTests {
    /// A file source and a wav sink, the sink writing `output` (relative to the config).
    static func copy(input: String, output: String) -> String {
        Configs.direct(input: input, output: output)
    }

    @Test("file-source and wav-sink with one path: validate and run exit 65 naming both, the input kept")
    func outputIsInput() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("rec.wav", in: dir, seconds: 1)
        let before = try Data(contentsOf: dir.url.appendingPathComponent("rec.wav"))
        try dir.write("same.json", Self.copy(input: "rec.wav", output: "rec.wav"))
        for command in ["validate", "run"] {
            let result = try await Harness.audiograph([command, "same.json"], in: dir)
            expectError(result, exit: 65, at: "nodes.out.path", mentioning: ["nodes.src.path"])
        }
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("rec.wav")) == before, "the recording is untouched")
    }

    @Test("the same file through a symlink, through .., and through a hard link is the same file")
    func aliases() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("rec.wav", in: dir, seconds: 0.5)
        let before = try Data(contentsOf: dir.url.appendingPathComponent("rec.wav"))
        try FileManager.default.createDirectory(atPath: dir.path("sub"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.path("link.wav"), withDestinationPath: "rec.wav")
        try FileManager.default.createSymbolicLink(atPath: dir.path("folder-link"), withDestinationPath: dir.path("sub"))
        try FileManager.default.linkItem(atPath: dir.path("rec.wav"), toPath: dir.path("hard.wav"))
        for output in ["link.wav", "sub/../rec.wav", "folder-link/../rec.wav", "hard.wav", "./rec.wav"] {
            try dir.write("alias.json", Self.copy(input: "rec.wav", output: output))
            let result = try await Harness.audiograph(["run", "alias.json"], in: dir)
            expectError(result, exit: 65, at: "nodes.out.path", mentioning: ["nodes.src.path"])
        }
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("rec.wav")) == before)
    }

    @Test("a caption file written over the config itself is refused (65), the config kept")
    func outputIsConfig() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.3)
        let config = """
            {"version": 1,
             "nodes": {"src": {"type": "file-source", "path": "in.wav"}, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
                       "asr": {"type": "recognizer"}, "cc": {"type": "caption-sink", "format": "json", "path": "self.json"}},
             "links": ["src -> rs -> asr -> cc"]}
            """
        try dir.write("self.json", config)
        let result = try await Harness.audiograph(["run", "self.json", "--quiet"], in: dir)
        expectError(result, exit: 65, at: "nodes.cc.path", mentioning: ["the config file"])
        #expect(try dir.read("self.json") == config)
    }

    @Test("two wav sinks with one path, one not yet existing behind a symlinked folder: exit 65 naming both")
    func twoSinksOneFile() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.5)
        try FileManager.default.createDirectory(atPath: dir.path("real"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.path("alias"), withDestinationPath: "real")
        try dir.write("two.json", """
            {"version": 1,
             "nodes": {"src": {"type": "file-source", "path": "in.wav"},
                       "a": {"type": "wav-sink", "path": "real/mix.wav"},
                       "b": {"type": "wav-sink", "path": "alias/mix.wav"}},
             "links": ["src -> a", "src -> b"]}
            """)
        for command in ["validate", "run"] {
            let result = try await Harness.audiograph([command, "two.json"], in: dir)
            expectError(result, exit: 65, at: "nodes.b.path", mentioning: ["nodes.a.path"])
        }
        #expect(!dir.exists("real/mix.wav"), "nothing was opened")
    }

    @Test("a caption file written over the input audio is refused too; distinct outputs still run")
    func otherSinkTypes() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.5)
        try dir.write("cc.json", """
            {"version": 1,
             "nodes": {"src": {"type": "file-source", "path": "in.wav"}, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
                       "asr": {"type": "recognizer"}, "cc": {"type": "caption-sink", "format": "webvtt", "path": "in.wav"}},
             "links": ["src -> rs -> asr -> cc"]}
            """)
        let refused = try await Harness.audiograph(["validate", "cc.json"], in: dir)
        expectError(refused, exit: 65, at: "nodes.cc.path")
        try dir.write("ok.json", Self.copy(input: "in.wav", output: "copy.wav"))
        let ok = try await Harness.audiograph(["run", "ok.json", "--quiet"], in: dir)
        #expect(ok.status == 0, "\(ok)")
        #expect(dir.exists("copy.wav"))
    }

    @Test("batch: a wav-sink with a fixed path over two files is refused (65), nothing runs")
    func batchSharedOutput() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("a.wav", in: dir, seconds: 0.3)
        try await Harness.makeWAV("b.wav", in: dir, seconds: 0.3)
        try dir.write("m.jsonl", "{\"path\": \"a.wav\"}\n{\"path\": \"b.wav\"}\n")
        try dir.write("p.json", Self.copy(input: "placeholder.wav", output: "copy.wav"))
        let result = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--quiet"], in: dir)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("nodes.out.path") && result.stderr.contains("a.wav")
                && result.stderr.contains("b.wav"), "names the parameter and both files\n\(result)")
        #expect(!dir.exists("copy.wav"), "refused before any file ran")
    }

    @Test("batch: an output that is another line's input is refused, even for one file per output")
    func batchOutputIsAnotherInput() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("a.wav", in: dir, seconds: 0.3)
        let before = try Data(contentsOf: dir.url.appendingPathComponent("a.wav"))
        try dir.write("m.jsonl", "{\"path\": \"a.wav\"}\n")
        try dir.write("p.json", Self.copy(input: "placeholder.wav", output: "a.wav"))
        let result = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--quiet"], in: dir)
        #expect(result.status == 65, "\(result)")
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("a.wav")) == before)
    }
}
