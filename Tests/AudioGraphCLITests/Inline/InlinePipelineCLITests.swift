import AudioGraphTestKit
import Foundation
import Testing

/// Issue 18, item 3: `run -e` and `validate -e` on the real binary (the printed config runs to the same
/// output), errors at their column, and configs read from a stream: `run -`, `validate /dev/stdin`, `<(…)`.
@Suite("audiograph run/validate -e and streams")
struct InlinePipelineCLITests {
    static let chain = "file-source path=in.wav ! resampler sampleRate=16000 channels=1 ! wav-sink path=out.wav"

    static func shell(_ script: String, in dir: TemporaryFolder) async throws -> CLIResult {
        try await Harness.run(URL(fileURLWithPath: "/bin/bash"), ["-c", script, try Harness.binary().path], in: dir)
    }

    @Test("run -e writes the chain's output; validate -e --print-config prints a config run writes the same from")
    func equivalence() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir)
        let inline = try await Harness.audiograph(["run", "-e", Self.chain], in: dir)
        #expect(inline.status == 0, "\(inline)")
        let first = try Data(contentsOf: URL(fileURLWithPath: dir.path("out.wav")))
        #expect(try await Harness.soxi("-r", "out.wav", in: dir) == 16000)

        let printed = try await Harness.audiograph(["validate", "-e", Self.chain, "--print-config"], in: dir)
        #expect(printed.status == 0, "\(printed)")
        #expect(printed.stdout.contains("\"sampleRate\": 16000"), "\(printed)")
        #expect(printed.stdout.contains("\"file-source -> resampler -> wav-sink\""), "\(printed)")
        try dir.write("p.json", printed.stdout)
        try FileManager.default.removeItem(atPath: dir.path("out.wav"))
        let fromFile = try await Harness.audiograph(["run", "p.json"], in: dir)
        #expect(fromFile.status == 0, "\(fromFile)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.path("out.wav"))) == first)
    }

    @Test("validate -e prints the graph; a bad -e is exit 65 at its column")
    func validateAndErrors() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir)
        let valid = try await Harness.audiograph(["validate", "-e", Self.chain], in: dir)
        #expect(valid.status == 0 && valid.stdout.contains("ok: the -e pipeline is valid"), "\(valid)")
        let bad = try await Harness.audiograph(["run", "-e", "file-source path=in.wav ! resampelr ! wav-sink path=o.wav"], in: dir)
        expectError(bad, exit: 65, at: "-e column 27")
        #expect(bad.stderr.contains("did you mean \"resampler\"") || bad.stderr.contains("did you mean resampler"), "\(bad)")
        let both = try await Harness.audiograph(["run", "p.json", "-e", Self.chain], in: dir)
        expectError(both, exit: 64, at: "p.json")
    }

    @Test("run - reads stdin, validate /dev/stdin a pipe, validate <(…) a process substitution")
    func streams() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir)
        try dir.write("p.json", """
            {"version": 1, "nodes": {"src": {"type": "file-source", "path": "in.wav"},
             "out": {"type": "wav-sink", "path": "streamed.wav"}}, "links": ["src -> out"]}
            """)
        let stdin = try await Self.shell("\"$0\" run - < p.json", in: dir)
        #expect(stdin.status == 0, "\(stdin)")
        #expect(dir.exists("streamed.wav"), "\(stdin)")
        let pipe = try await Self.shell("cat p.json | \"$0\" validate /dev/stdin", in: dir)
        #expect(pipe.status == 0 && pipe.stdout.contains("ok: /dev/stdin is valid"), "\(pipe)")
        let substitution = try await Self.shell("\"$0\" validate <(cat p.json)", in: dir)
        #expect(substitution.status == 0 && substitution.stdout.contains("is valid"), "\(substitution)")
        let empty = try await Self.shell("\"$0\" validate - < /dev/null", in: dir)
        expectError(empty, exit: 65, at: "stdin")
    }
}
