/// Issue 15, engine `whisper`, item "Model": a `model` the config names explicitly that is missing exits 69 at
/// `nodes.asr.model` with the file and the install command (the builder's generic missing-input check, exit 66,
/// used to answer first), for `validate` and `run` alike; a FIFO given as the model is still refused before
/// anything opens it (exit 66). Nothing is written.
import AudioGraphTestKit
import Foundation
import Testing

@Suite struct WhisperModelPathTests {
    private func config(model: String) -> String {
        WhisperCLI.sessionConfig(recognizer: #"{ "type": "recognizer", "engine": "whisper", "model": "\#(model)" }"#)
    }

    @Test(arguments: ["validate", "run"])
    func aMissingExplicitModelIsUnavailableWithTheInstallCommand(command: String) async throws {
        let dir = try TemporaryFolder()
        try await WhisperCLI.makeSpeech(["goforward"], in: dir)
        try dir.write("missing.json", config(model: "models/ggml-nowhere.bin"))
        let result = try await Harness.audiograph([command, "missing.json"], in: dir)
        expectError(result, exit: 69, at: "nodes.asr.model")
        #expect(result.stderr.contains(dir.path("models/ggml-nowhere.bin")), "names the file\n\(result)")
        #expect(result.stderr.contains("audiograph models install tiny.en"), "says how to install\n\(result)")
        #expect(!dir.exists("out/captions.json") && !dir.exists("out/store.sqlite"), "nothing may be written")
    }

    @Test func aFIFOAsTheModelIsRefusedUnopened() async throws {
        let dir = try TemporaryFolder()
        try await WhisperCLI.makeSpeech(["goforward"], in: dir)
        #expect(mkfifo(dir.path("model.fifo"), 0o600) == 0)
        try dir.write("fifo.json", config(model: "model.fifo"))
        let result = try await Harness.audiograph(["validate", "fifo.json"], in: dir)
        expectError(result, exit: 66, at: "nodes.asr.model")
        #expect(result.stderr.contains("FIFO"), "\(result)")
    }
}
