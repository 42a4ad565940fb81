import AudioGraphTestKit
import AudioGraphWhisper
import Foundation
import Testing

/// What the whisper CLI tests share (issue 15, item "tests with the real model"): the real tiny.en model, which
/// must be installed (a test fails, never skips, without it), the transcribed fixture clips, and the pipeline.
enum WhisperCLI {
    /// The speech fixtures (the same clips as ../shared/speech) and their references.
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AudioGraphSpeechTests/Fixtures")

    /// The installed default model; records a failure naming the install command when it is missing.
    static func requireModel(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let path = WhisperModelLocations.defaultModelPath()
        try #require(FileManager.default.isReadableFile(atPath: path),
                     "the whisper tests need the real tiny.en model at \(path): audiograph models install tiny.en",
                     sourceLocation: sourceLocation)
        return path
    }

    /// `clip<TAB>text` of the fixtures' references.tsv.
    static func references() throws -> [String: String] {
        let text = try String(contentsOf: fixtures.appendingPathComponent("references.tsv"), encoding: .utf8)
        var references: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { references[String(parts[0])] = String(parts[1]) }
        }
        return references
    }

    /// Writes `speech.wav` in `dir`: the clips in order, each followed by 1.5 s of silence so the VAD splits them.
    static func makeSpeech(_ clips: [String], in dir: TemporaryFolder) async throws {
        var parts: [String] = []
        for (index, clip) in clips.enumerated() {
            let part = "part\(index).wav"
            let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                               ["sox", fixtures.appendingPathComponent(clip + ".wav").path, part,
                                                "pad", "0", "1.5"], in: dir)
            guard result.status == 0 else { throw HarnessError("sox failed: \(result.stderr)") }
            parts.append(part)
        }
        let joined = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"), ["sox"] + parts + ["speech.wav"], in: dir)
        guard joined.status == 0 else { throw HarnessError("sox failed: \(joined.stderr)") }
    }

    /// A session config: file-source -> resampler -> vad -> recognizer -> transcript-store and caption-sink json
    /// (out/store.sqlite, out/captions.json). `recognizer` is the recognizer node's JSON object.
    static func sessionConfig(recognizer: String) -> String {
        """
        {
          "version": 1,
          "session": { "id": "engines", "room": "lab", "autoStartTranscription": true },
          "nodes": {
            "src":   { "type": "file-source", "path": "speech.wav" },
            "rs":    { "type": "resampler", "sampleRate": 16000, "channels": 1 },
            "vad":   { "type": "vad" },
            "asr":   \(recognizer),
            "store": { "type": "transcript-store", "path": "out/store.sqlite" },
            "cc":    { "type": "caption-sink", "format": "json", "path": "out/captions.json" }
          },
          "links": ["src -> rs -> vad -> asr -> store", "asr -> cc"]
        }
        """
    }

    /// The texts of a caption-sink json file's utterances, in order.
    static func captionTexts(_ path: String) throws -> [String] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let utterances = try #require(object["utterances"] as? [[String: Any]])
        return utterances.compactMap { $0["text"] as? String }
    }

    /// Errors and words of `hypothesis` against the references of `clips`, joined (benchmarks/wer.py's scoring).
    static func wordErrors(of hypothesis: [String], clips: [String]) throws -> (errors: Int, words: Int) {
        let references = try references()
        let reference = try clips.map { try #require(references[$0], "no reference for \($0)") }.joined(separator: " ")
        return WordErrorRate.errors(reference: reference, hypothesis: hypothesis.joined(separator: " "))
    }
}
