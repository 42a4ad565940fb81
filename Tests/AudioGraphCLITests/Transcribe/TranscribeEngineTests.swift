import AudioGraphTestKit
import Foundation
import Testing

/// Issue 38, item 1: `transcribe` says which engine transcribes. With no whisper model installed it used to fall
/// back to pocketsphinx in silence (exit 0, 36 % WER against 0 %): it now warns, naming the install command, and
/// the `--json` summary carries the engine and its model.
@Suite("transcribe names its engine and warns when it falls back")
struct TranscribeEngineTests {
    @Test func fallbackWithoutAWhisperModelIsSaid() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("a.wav", in: dir, seconds: 0.5)
        try FileManager.default.createDirectory(atPath: dir.path("no-models"), withIntermediateDirectories: true)
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_MODELS_DIR"] = dir.path("no-models")
        let result = try await Harness.run(try Harness.binary(), ["transcribe", "a.wav", "--json"], in: dir, environment: environment)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("warning: no whisper model is installed, so pocketsphinx transcribes")
                    && result.stderr.contains("audiograph models install tiny.en"), "\(result)")
        let summary = try BatchFixtures.json(result.stdout)
        #expect(summary["engine"] as? String == "pocketsphinx", "\(summary)")

        // Asked for by name: no warning, and the summary says so.
        let named = try await Harness.run(try Harness.binary(), ["transcribe", "a.wav", "--json", "--force", "--engine", "pocketsphinx"],
                                          in: dir, environment: environment)
        #expect(named.status == 0 && !named.stderr.contains("warning:"), "\(named)")
        #expect(try BatchFixtures.json(named.stdout)["engine"] as? String == "pocketsphinx")
    }

    @Test func theWhisperModelIsNamed() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("a.wav", in: dir, seconds: 0.5)
        let result = try await Harness.audiograph(["transcribe", "a.wav", "--json"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stderr.contains("note: engine whisper, model ") && !result.stderr.contains("warning:"), "\(result)")
        let summary = try BatchFixtures.json(result.stdout)
        #expect(summary["engine"] as? String == "whisper")
        #expect((summary["model"] as? String)?.hasSuffix("ggml-tiny.en.bin") == true, "\(summary)")
    }
}
