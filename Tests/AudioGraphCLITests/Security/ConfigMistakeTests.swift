import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 13 — "Smaller mistakes": `1e999` is said to be out of range (not "got an integer"); a `--dot`
/// file that cannot be written (a symlink to /dev/full) exits 74 and the symlink stays; a NUL in an output
/// path is refused (no `x%00.wav`); corrupt input data exits 65 whatever its format (74 is for I/O errors).
@Suite("security: smaller config and data mistakes get the right error")
struct ConfigMistakeTests {
    @Test("1e999 for an integer and for a number: out of range, at the JSON path (65)")
    func hugeNumber() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("int.json", Configs.levels().replacingOccurrences(of: "\"intervalMs\": 250", with: "\"intervalMs\": 1e999"))
        let int = try await Harness.audiograph(["validate", "int.json"], in: dir)
        expectError(int, exit: 65, at: "nodes.level.intervalMs")
        #expect(int.stderr.contains("out of range") && !int.stderr.contains("got an integer"), "\(int)")
        try dir.write("big.json", Configs.levels().replacingOccurrences(of: "\"intervalMs\": 250", with: "\"intervalMs\": 1e300"))
        let big = try await Harness.audiograph(["validate", "big.json"], in: dir)
        expectError(big, exit: 65, at: "nodes.level.intervalMs")
        #expect(big.stderr.contains("out of range") && !big.stderr.contains("got an integer"), "\(big)")
        let set = try await Harness.audiograph(["validate", "int.json", "--set", "level.intervalMs=250",
                                                "--set", "src.blockFrames=-1e999"], in: dir)
        expectError(set, exit: 65, at: "nodes.src.blockFrames", mentioning: ["out of range"])
        for (key, location) in [("\"version\": 1,", "version"), ("\"intervalMs\": 250", "nodes.level.queue")] {
            let text = Configs.levels().replacingOccurrences(of: key, with: location == "version"
                ? "\"version\": 1e999," : "\"intervalMs\": 250, \"queue\": 1e999")
            try dir.write("other.json", text)
            let other = try await Harness.audiograph(["validate", "other.json"], in: dir)
            expectError(other, exit: 65, at: location, mentioning: ["out of range"])
        }
    }

    @Test("--dot to a symlink to /dev/full: exit 74 naming the file, the symlink left a symlink")
    func dotWriteError() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("levels.json", Configs.levels())
        try FileManager.default.createSymbolicLink(atPath: dir.path("full.dot"), withDestinationPath: "/dev/full")
        let result = try await Harness.audiograph(["run", "levels.json", "--quiet", "--dot", "full.dot"], in: dir)
        expectError(result, exit: 74, at: "full.dot")
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir.path("full.dot")) == "/dev/full")
        let ok = try await Harness.audiograph(["run", "levels.json", "--quiet", "--dot", "graph.dot"], in: dir)
        #expect(ok.status == 0, "\(ok)")
        #expect(try dir.read("graph.dot").hasPrefix("digraph audiograph {"))
    }

    @Test("a NUL in an output path, or in a store string, is refused at the JSON path (65); no file is made")
    func nulInPath() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("nul.json", Configs.direct(input: "in.wav", output: "x\\u0000.wav"))
        for command in ["validate", "run"] {
            let result = try await Harness.audiograph([command, "nul.json"], in: dir)
            expectError(result, exit: 65, at: "nodes.out.path", mentioning: ["NUL"])
        }
        // A store given as a string parameter (a SQLite path or a URL) is a C string too.
        try dir.write("store.json", """
            {"version": 1,
             "nodes": {"src": {"type": "file-source", "path": "in.wav"}, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
                       "asr": {"type": "recognizer"}, "keep": {"type": "transcript-store", "store": "x\\u0000.sqlite"}},
             "links": ["src -> rs -> asr -> keep"]}
            """)
        let store = try await Harness.audiograph(["validate", "store.json"], in: dir)
        expectError(store, exit: 65, at: "nodes.keep.store", mentioning: ["NUL"])
        let made = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("x") }
        #expect(made.isEmpty, "\(made)")
    }

    /// `name` made from a 2 s sine (by sox, or for .m4a by ffmpeg with its index first, so the damage is met
    /// while decoding, not when opening), then every byte after the first `keep` replaced by a fixed garbage
    /// pattern.
    static func corrupt(_ name: String, in dir: TemporaryFolder, keep: Int) async throws {
        let clean = "clean-" + name
        if name.hasSuffix(".m4a") {
            let made = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                             ["ffmpeg", "-loglevel", "error", "-f", "lavfi", "-i", "sine=d=2", "-c:a", "aac",
                                              "-movflags", "+faststart", clean], in: dir)
            guard made.status == 0 else { throw HarnessError("ffmpeg failed: \(made.stderr)") }
        } else {
            try await Harness.makeWAV(clean, in: dir, seconds: 2)
        }
        var bytes = try Data(contentsOf: dir.url.appendingPathComponent(clean))
        let start = keep < 0 ? bytes.count / 2 : keep
        for index in start..<bytes.count { bytes[index] = UInt8(truncatingIfNeeded: index &* 73 &+ 41) }
        try bytes.write(to: dir.url.appendingPathComponent(name))
    }

    @Test("corrupt FLAC, OGG and M4A data all exit 65 naming the file (74 is for I/O errors)",
          arguments: [("bad.flac", 200), ("bad.ogg", 200), ("bad.m4a", -1)])
    func corruptData(name: String, keep: Int) async throws {
        let dir = try TemporaryFolder()
        try await Self.corrupt(name, in: dir, keep: keep)
        try dir.write("c.json", Configs.direct(input: name))
        let result = try await Harness.audiograph(["run", "c.json", "--quiet"], in: dir)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains(name), "\(result)")
    }
}
