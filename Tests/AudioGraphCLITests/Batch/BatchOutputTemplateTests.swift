import AudioGraphTestKit
import Foundation
import Testing

/// Issue 18, item 4 (batch outputs): sink paths name the input with `{stem}`, `{name}`, `{dir}` and
/// `{session}`, so a batch writes one caption file per input; a fixed sink path shared by several files is
/// refused (exit 65, naming the node) before any file runs, in `batch` and in `transcribe`.
@Suite("batch output templates")
struct BatchOutputTemplateTests {
    static func pipeline(srtPath: String) -> String {
        """
        {"version": 1,
         "nodes": {"src": {"type": "file-source", "path": "placeholder.wav"}, "vad": {"type": "vad"},
                   "asr": {"type": "recognizer", "engine": "pocketsphinx"},
                   "srt": {"type": "caption-sink", "format": "srt", "path": "\(srtPath)"}},
         "links": ["src -> vad -> asr -> srt"]}
        """
    }

    @Test("{stem}, {session}, {name} and {dir}: one SRT per file, named after it")
    func templates() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(2, in: dir)
        try dir.write("m.jsonl", "{\"path\": \"\(names[0])\", \"session\": \"first\"}\n{\"path\": \"\(names[1])\"}\n")
        try dir.write("p.json", Self.pipeline(srtPath: "out/{session}-{stem}.srt"))
        let result = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--jobs", "2"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(try dir.read("out/first-call0.srt").contains(" --> "), "\(result)")
        #expect(try dir.read("out/call1-call1.srt").contains(" --> "), "\(result)")

        try dir.write("q.json", Self.pipeline(srtPath: "{dir}/{name}.srt"))
        let next = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "q.json", "--jobs", "2"], in: dir)
        #expect(next.status == 0, "\(next)")
        #expect(dir.exists("call0.wav.srt") && dir.exists("call1.wav.srt"), "\(next)")
    }

    @Test("a fixed sink path in a batch of two: exit 65 naming the node, nothing written")
    func fixedPathRefused() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(2, in: dir)
        try dir.write("m.jsonl", names.map { "{\"path\": \"\($0)\"}" }.joined(separator: "\n") + "\n")
        try dir.write("p.json", Self.pipeline(srtPath: "out/batch.srt"))
        let result = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--jobs", "2"], in: dir)
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains("nodes.srt.path"), "\(result)")
        #expect(!dir.exists("out/batch.srt"), "\(result)")
    }

    @Test("transcribe: two inputs whose outputs collide in --out-dir, and a fixed --set path: exit 65 naming the node")
    func transcribeCollision() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(2, in: dir)
        try FileManager.default.createDirectory(atPath: dir.path("a"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir.path("b"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: dir.path(names[0]), toPath: dir.path("a/x.wav"))
        try FileManager.default.moveItem(atPath: dir.path(names[1]), toPath: dir.path("b/x.wav"))
        let collide = try await Harness.audiograph(["transcribe", "a/x.wav", "b/x.wav", "--out-dir", "out", "--engine", "pocketsphinx"],
                                                   in: dir)
        #expect(collide.status == 65, "\(collide)")
        #expect(collide.stderr.contains("nodes.srt.path"), "\(collide)")
        let fixed = try await Harness.audiograph(["transcribe", "a/x.wav", "b/x.wav", "--set", "srt.path=all.srt",
                                                  "--engine", "pocketsphinx"], in: dir)
        #expect(fixed.status == 65 && fixed.stderr.contains("nodes.srt.path"), "\(fixed)")
        #expect(!dir.exists("out/x.srt") && !dir.exists("all.srt"))
    }
}
