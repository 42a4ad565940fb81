import AudioGraph
import AudioGraphTestKit
import AudioGraphWhisper
import Foundation
import Testing

/// Issue 34, item 4a — "`transcribe --force` destroys the old transcript when the new run cannot start": output
/// files are made only once every node of the run has started (`AudioNode.openOutputs`), so a recognizer whose
/// model does not load (exit 69) leaves the outputs as they were: old files byte for byte, and no empty file
/// that would make the retry refuse with 73.
@Suite("security: a run that cannot start leaves its outputs as they were")
struct FailedStartKeepsOutputsTests {
    static let oldSRT = "1\n00:00:00,000 --> 00:00:01,500\nthe old transcript\n\n"
    static let oldVTT = "WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nthe old transcript\n\n"

    /// A models folder whose tiny.en is the installed one cut after 3 MB (`broken`: its header passes the check at
    /// build time, and whisper.cpp fails to load it when the recognizer starts), or a link to the installed one.
    static func models(in dir: TemporaryFolder, broken: Bool) throws -> [String: String] {
        let folder = broken ? "broken-models" : "models"
        try FileManager.default.createDirectory(atPath: dir.path(folder), withIntermediateDirectories: true)
        let model = dir.path("\(folder)/ggml-tiny.en.bin")
        let tiny = WhisperModelLocations.defaultModelPath()
        try #require(FileManager.default.isReadableFile(atPath: tiny), "needs tiny.en: audiograph models install tiny.en")
        if broken {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: tiny))
            defer { try? handle.close() }
            try #require(try handle.read(upToCount: 3_000_000)).write(to: URL(fileURLWithPath: model))
        } else {
            try FileManager.default.createSymbolicLink(atPath: model, withDestinationPath: tiny)
        }
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_MODELS_DIR"] = dir.path(folder)
        return environment
    }

    static func transcribe(_ extra: [String], in dir: TemporaryFolder, environment: [String: String]) async throws -> CLIResult {
        try await Harness.run(try Harness.binary(), ["transcribe", "talk.wav", "-o", "srt,vtt", "--engine", "whisper", "--quiet"]
                              + extra, in: dir, environment: environment)
    }

    @Test("transcribe --force over good outputs with a model that does not load: exit 69, both files byte for byte")
    func forceKeepsOldOutputs() async throws {
        let dir = try TemporaryFolder()
        _ = try await Harness.makeWAV("talk.wav", in: dir, sampleRate: 16_000, channels: 1, seconds: 1)
        try dir.write("talk.srt", Self.oldSRT)
        try dir.write("talk.vtt", Self.oldVTT)
        let result = try await Self.transcribe(["--force"], in: dir, environment: try Self.models(in: dir, broken: true))
        expectError(result, exit: 69, at: "nodes.asr.model", mentioning: ["could not load"])
        #expect(try dir.read("talk.srt") == Self.oldSRT, "the old SRT was destroyed: \(result)")
        #expect(try dir.read("talk.vtt") == Self.oldVTT, "the old WebVTT was destroyed: \(result)")
    }

    @Test("without --force: a model that does not load leaves no output, and a retry with a good model succeeds")
    func noEmptyFilesBlockTheRetry() async throws {
        let dir = try TemporaryFolder()
        _ = try await Harness.makeWAV("talk.wav", in: dir, sampleRate: 16_000, channels: 1, seconds: 1)
        let failed = try await Self.transcribe([], in: dir, environment: try Self.models(in: dir, broken: true))
        expectError(failed, exit: 69, at: "nodes.asr.model", mentioning: ["could not load"])
        #expect(!dir.exists("talk.srt") && !dir.exists("talk.vtt"), "a failed start left files: \(failed)")
        let retry = try await Self.transcribe([], in: dir, environment: try Self.models(in: dir, broken: false))
        #expect(retry.status == 0, "\(retry)")
        #expect(try dir.read("talk.vtt").hasPrefix("WEBVTT"), "\(retry)")
    }

    @Test("run: a wav-sink and a json caption-sink beside a recognizer whose model does not load keep their old files")
    func runKeepsEveryOutput() async throws {
        let dir = try TemporaryFolder()
        _ = try await Harness.makeWAV("talk.wav", in: dir, sampleRate: 16_000, channels: 1, seconds: 1)
        _ = try Self.models(in: dir, broken: true)
        let oldJSON = #"{"utterances": ["the old transcript"]}"# + "\n"
        try dir.write("copy.wav", "an old recording\n")
        try dir.write("out.json", oldJSON)
        try dir.write("p.json", """
            {"version": 1, "session": {"autoStartTranscription": true},
             "nodes": {"src": {"type": "file-source", "path": "talk.wav"},
              "asr": {"type": "recognizer", "engine": "whisper", "model": "broken-models/ggml-tiny.en.bin"},
              "cc": {"type": "caption-sink", "format": "json", "path": "out.json"}, "copy": {"type": "wav-sink", "path": "copy.wav"},
              "store": {"type": "transcript-store", "path": "t.sqlite"}},
             "links": ["src -> asr -> cc", "src -> copy", "asr -> store"]}
            """)
        // The store holds an earlier run; the failed one must add no session row to it.
        try SQLiteTranscriptStore(path: dir.path("t.sqlite")).close()
        // The runtime starts the sinks (copy, cc) before the recognizer, whose model then fails to load.
        let result = try await Harness.audiograph(["run", "p.json", "--quiet"], in: dir)
        expectError(result, exit: 69, at: "nodes.asr.model", mentioning: ["could not load"])
        #expect(try Data(contentsOf: dir.url.appendingPathComponent("copy.wav")) == Data("an old recording\n".utf8),
                "the wav-sink's file was replaced: \(result)")
        #expect(try dir.read("out.json") == oldJSON, "the caption file was replaced: \(result)")
        let store = try SQLiteTranscriptStore(readingFrom: dir.path("t.sqlite"))
        defer { store.close() }
        #expect(try store.sessions(after: nil, limit: 10, transcribedOnly: false).isEmpty, "no session row for a run that never started")
    }
}
