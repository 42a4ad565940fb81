/// Issue 16, languages: without a `model` in its config the whisper recognizer uses the language's default model
/// (tiny.en for English, the multilingual base for the others). Here, through the binary, the paths where base is
/// missing from the models folder (`AUDIOGRAPH_MODELS_DIR` holding only tiny.en): a run in German is exit 69 naming
/// base's file and its install command, and writes nothing; an English run refuses a switch to German, saying what
/// to install, and goes on in English. With base installed, `transcribe --language` needs nothing more
/// (LanguageTranscriptTests' es-ES case runs without a `model`).
import AudioGraphTestKit
import AudioGraphWhisper
import Foundation
import Testing

@Suite struct ModelByLanguageCLITests {
    /// A models folder with only tiny.en (a link to the installed one).
    static func englishOnlyModels(in dir: TemporaryFolder) throws -> [String: String] {
        let tiny = WhisperModelLocations.defaultModelPath()
        try #require(FileManager.default.isReadableFile(atPath: tiny), "needs tiny.en: audiograph models install tiny.en")
        try FileManager.default.createDirectory(atPath: dir.path("models"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir.path("models/ggml-tiny.en.bin"), withDestinationPath: tiny)
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_MODELS_DIR"] = dir.path("models")
        return environment
    }

    @Test func aLanguageWhoseModelIsMissingIsExit69NamingItAndWritesNothing() async throws {
        let dir = try TemporaryFolder()
        let environment = try Self.englishOnlyModels(in: dir)
        try SpokenSentences.write([("de", "Das Wetter ist heute sehr schön.")], to: dir.path("speech.wav"))
        let result = try await Harness.run(try Harness.binary(), ["transcribe", "speech.wav", "--language", "de-DE", "--quiet"],
                                           in: dir, environment: environment)
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("nodes.asr.model: whisper model unavailable: no whisper model at \(dir.path("models/ggml-base.bin")); "
                                       + "install the multilingual model with `audiograph models install base`"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("speech.srt")))
    }

    @Test func anEnglishRunRefusesASwitchItHasNoModelForAndGoesOn() async throws {
        let dir = try TemporaryFolder()
        let environment = try Self.englishOnlyModels(in: dir)
        try SpokenSentences.write([("en-us", "Hello there, this is a short test.")], to: dir.path("speech.wav"))
        // No stop: the run ends with its file (a stop read early would end it before the speech).
        try dir.write("control.jsonl", #"{"command":"setCaptionLanguage","language":"de-DE"}"# + "\n")
        try dir.write("p.json", """
            {"version": 1, "session": {"autoStartTranscription": true},
             "nodes": {"src": {"type": "file-source", "path": "speech.wav"}, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
              "vad": {"type": "vad"}, "asr": {"type": "recognizer", "engine": "whisper", "threads": 1},
              "cc": {"type": "caption-sink", "format": "json", "path": "out.json"}},
             "links": ["src -> rs -> vad -> asr -> cc"]}
            """)
        let result = try await Harness.run(try Harness.binary(), ["run", "p.json", "--events", "jsonl", "--control", "control.jsonl", "--quiet"],
                                           in: dir, environment: environment)
        #expect(result.status == 0, "\(result)")
        let events = result.stdoutLines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let refusal = try #require(events.first { $0["type"] as? String == "error" && $0["command"] as? String == "setCaptionLanguage" },
                                   "\(result)")
        #expect(refusal["code"] as? String == "unsupported_language")
        #expect(refusal["message"] as? String == "recognizer engine \"whisper\" cannot do de-DE; it has en-US, en-GB; for the other "
                + "languages install the multilingual model (`audiograph models install base`); without a `model` the recognizer "
                + "uses it for them", "\(refusal)")
        let finals = events.filter { $0["type"] as? String == "transcript" && $0["final"] as? Bool == true }
        #expect(!finals.isEmpty && finals.allSatisfy { $0["language"] as? String == "en-US" }, "\(result)")
    }
}
