import AudioGraphTestKit
import Foundation
import Testing

/// Issue 34, item 6 — "A damaged whisper model crashes the process": one header field of a ggml model changed
/// (`n_audio_head = 0`: SIGFPE, exit 136; a huge `n_vocab` or `n_audio_state`: abort, 134) took the process down,
/// every session of `serve --run` with it. Now `run` exits 69 at the model's JSON path naming the field and the
/// file, before whisper.cpp sees it and before any audio flows; the same for the Silero VAD model. Copies of the
/// stand-in fixtures in a temporary folder; the models folder is never touched.
@Suite("security: a damaged model file is exit 69 naming the field, never a crash")
struct DamagedModelCLITests {
    static let whisperFixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AudioGraphWhisperTests/Fixtures")

    /// Field, its index in the header (after the magic), the damaging value.
    static let whisperDamage: [(field: String, index: Int, value: Int32)] = [
        ("n_audio_head", 3, 0), ("n_vocab", 0, 1 << 30), ("n_audio_state", 2, 1 << 30), ("n_mels", 9, 0),
        ("n_text_layer", 8, .max), ("ftype", 10, 5),
    ]

    @Test("a whisper model with one damaged header field: run exits 69 at nodes.asr.model naming it")
    func damagedWhisperHeader() async throws {
        let dir = try TemporaryFolder()
        try await WhisperCLI.makeSpeech(["goforward"], in: dir)
        for damage in Self.whisperDamage {
            let model = try dir.patchedCopy(of: Self.whisperFixtures.appendingPathComponent("for-tests-ggml-tiny.en.bin"),
                                            as: "models/ggml-\(damage.field).bin", int32s: [4 + 4 * damage.index: damage.value])
            try dir.write("damaged.json", WhisperCLI.sessionConfig(
                recognizer: #"{ "type": "recognizer", "engine": "whisper", "model": "\#(model)" }"#))
            let result = try await Harness.audiograph(["run", "damaged.json"], in: dir)
            expectError(result, exit: 69, at: "nodes.asr.model", mentioning: ["\(damage.field) is \(damage.value)", model])
            #expect(!dir.exists("out/captions.json"), "no audio may flow: \(damage.field)")
        }
    }

    @Test("a Silero VAD model with a damaged layer count or size: run exits 69 at nodes.vad.model naming it")
    func damagedSileroHeader() async throws {
        let dir = try TemporaryFolder()
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("AudioGraphSpeechTests/Fixtures/librivox_0880.wav").path
        // The fields start at byte 30 (magic, type length, "silero-16k", version).
        for (field, offset, value) in [("n_encoder_layers", 38, Int32(0)), ("n_encoder_layers", 38, -1),
                                       ("lstm_hidden_size", 94, 1 << 30), ("n_window", 30, 0)] {
            let model = try dir.patchedCopy(of: Self.whisperFixtures.appendingPathComponent("for-tests-silero-v6.2.0-ggml.bin"),
                                            as: "models/silero-\(offset)-\(value).bin", int32s: [offset: value])
            try dir.write("vad.json", """
                { "version": 1,
                  "nodes": { "src": { "type": "file-source", "path": "\(clip)" },
                             "vad": { "type": "vad", "engine": "silero", "model": "\(model)" },
                             "out": { "type": "wav-sink", "path": "out.wav" } },
                  "links": ["src -> vad -> out"] }
                """)
            let result = try await Harness.audiograph(["run", "vad.json"], in: dir)
            expectError(result, exit: 69, at: "nodes.vad.model", mentioning: ["\(field) is \(value)", model])
            #expect(!dir.exists("out.wav"), "no audio may flow: \(field) = \(value)")
        }
    }
}
