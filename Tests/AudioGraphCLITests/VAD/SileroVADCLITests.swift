/// Issue 16, VAD item 1 (CLI): with no Silero model in the models folder, `vad` with `engine: silero` is exit 69 at
/// `nodes.vad.model` naming `audiograph models install silero`, before any audio flows (no output file is
/// written); `audiograph models install silero` into that folder fixes it.
import AudioGraphTestKit
import Foundation
import Testing

@Suite struct SileroVADCLITests {
    static func config(_ clip: String) -> String {
        """
        { "version": 1,
          "nodes": { "src": { "type": "file-source", "path": "\(clip)" },
                     "vad": { "type": "vad", "engine": "silero" },
                     "out": { "type": "wav-sink", "path": "out.wav" } },
          "links": ["src -> vad -> out"] }
        """
    }

    @Test func missingDefaultModelIsExit69UntilInstalled() async throws {
        let dir = try TemporaryFolder()
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("AudioGraphSpeechTests/Fixtures/librivox_0880.wav").path
        _ = try dir.write("vad.json", Self.config(clip))
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_MODELS_DIR"] = dir.path("models")
        let binary = try Harness.binary()
        let missing = try await Harness.run(binary, ["run", "vad.json", "--events", "jsonl"], in: dir, environment: environment)
        #expect(missing.status == 69, "\(missing)")
        #expect(missing.stderr.contains("nodes.vad.model"), "\(missing.stderr)")
        #expect(missing.stderr.contains("audiograph models install silero"), "\(missing.stderr)")
        #expect(!missing.stdout.contains("speechStarted"))
        #expect(!FileManager.default.fileExists(atPath: dir.path("out.wav")), "audio flowed before the model check")

        let install = try await Harness.run(binary, ["models", "install", "silero"], in: dir, environment: environment)
        try #require(install.status == 0, "\(install)")
        let run = try await Harness.run(binary, ["run", "vad.json", "--events", "jsonl"], in: dir, environment: environment)
        #expect(run.status == 0, "\(run)")
        #expect(run.stdout.contains("speechStarted") && run.stdout.contains("speechEnded"), "\(run.stdout)")
    }

    /// `models install silero` takes the model from the whisper.cpp source archive scripts/install-whisper.sh
    /// keeps in the cache; without it the install is refused (exit 69) naming that script, and writes nothing.
    @Test func installWithoutTheWhisperSourceArchiveNamesTheScript() async throws {
        let dir = try TemporaryFolder()
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_MODELS_DIR"] = dir.path("models")
        environment["AUDIOGRAPH_CACHE"] = dir.path("cache")
        let result = try await Harness.run(try Harness.binary(), ["models", "install", "silero"], in: dir, environment: environment)
        #expect(result.status == 69, "\(result)")
        #expect(result.stderr.contains("scripts/install-whisper.sh"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("models/ggml-silero.bin")))
    }
}
