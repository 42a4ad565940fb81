/// Issue 34, item 6 — "A damaged whisper model crashes the process": whisper.cpp trusts a ggml file's header
/// (`n_audio_head = 0` divides by zero, a huge `n_vocab` or `n_audio_state` aborts), so every header field is
/// checked against what a whisper model has before whisper.cpp sees the file: out of range is exit 69 at
/// `nodes.asr.model`, naming the field and the file. The Silero VAD file (also loaded by whisper.cpp, whose
/// loader indexes its arrays by the header's layer count) is checked field by field the same way. Copies of the
/// stand-in fixtures in a temporary folder, patched; nothing here loads a damaged file.
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite("security: a damaged model header is refused before whisper.cpp reads it", .ownThreads)
struct DamagedModelHeaderTests {
    static let whisperFields = ["n_vocab", "n_audio_ctx", "n_audio_state", "n_audio_head", "n_audio_layer",
                                "n_text_ctx", "n_text_state", "n_text_head", "n_text_layer", "n_mels", "ftype"]

    /// Values no whisper model has, per field (file order), given the tiny.en stand-in's other fields.
    static let badValues: [[Int32]] = [
        [0, -1, 51863, 51867, .max],                // n_vocab
        [0, -1, 1499, 1501, .max],                  // n_audio_ctx
        [0, -1, 383, 385, 4096, .max],              // n_audio_state
        [0, -6, 5, 7, 8, .max],                     // n_audio_head
        [0, -1, 3, 5, .max],                        // n_audio_layer
        [0, -1, 447, 449, .max],                    // n_text_ctx
        [0, -1, 512, .max],                         // n_text_state
        [0, -1, 5, 8, .max],                        // n_text_head
        [0, -1, 5, .max],                           // n_text_layer (1 to n_audio_layer)
        [0, -1, 79, 81, 127, .max],                 // n_mels
        [-1, 4, 5, 6, 28, 3001, .max],              // ftype
    ]

    static var fixtures: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures")
    }

    static func patched(_ fixture: String, _ patches: [Int: Int32], in folder: TemporaryFolder) throws -> String {
        try folder.patchedCopy(of: fixtures.appendingPathComponent(fixture), as: "patched.bin", int32s: patches)
    }

    /// The tiny.en stand-in with header fields (by index, file order) replaced.
    static func whisperModel(_ fields: [Int: Int32], in folder: TemporaryFolder) throws -> String {
        try patched("for-tests-ggml-tiny.en.bin", Dictionary(uniqueKeysWithValues: fields.map { (4 + 4 * $0.key, $0.value) }),
                    in: folder)
    }

    /// The error `WhisperEngine.validate` throws for the model at `path`, nil when it accepts it.
    static func validationError(_ path: String) -> GraphError? {
        do {
            try WhisperEngine.validate(WhisperTestSupport.options(["model": .string(path)]))
            return nil
        } catch let error as GraphError {
            return error
        } catch {
            Issue.record("unexpected error \(error)")
            return nil
        }
    }

    @Test("every whisper header field out of range: exit 69 at nodes.asr.model naming the field and the file")
    func everyWhisperFieldIsChecked() throws {
        let folder = try TemporaryFolder(prefix: "damaged-header")
        for (index, values) in Self.badValues.enumerated() {
            for value in values {
                let path = try Self.whisperModel([index: value], in: folder)
                let error = Self.validationError(path)
                let context = "\(Self.whisperFields[index]) = \(value)"
                #expect(error?.code == .unavailable, "\(context): \(String(describing: error))")
                #expect(error?.location == "nodes.asr.model", "\(context)")
                #expect(error?.message.contains("\(Self.whisperFields[index]) is \(value)") == true,
                        "\(context): \(error?.message ?? "accepted")")
                #expect(error?.message.contains(path) == true, "\(context): the file is named")
            }
        }
    }

    @Test("the whisper shapes are accepted: tiny to large, turbo's 4 decoder blocks, float32 and quantized files")
    func knownShapesAreAccepted() throws {
        let folder = try TemporaryFolder(prefix: "damaged-header")
        #expect(Self.validationError(WhisperTestSupport.standInModel) == nil)
        #expect(Self.validationError(Self.fixtures.appendingPathComponent("for-tests-ggml-base.bin").path) == nil)
        // state, heads, layers of small, medium and large (the mel filters stay the stand-in's 80 bands).
        for (state, heads, layers) in [(768, 12, 12), (1024, 16, 24), (1280, 20, 32)] as [(Int32, Int32, Int32)] {
            let path = try Self.whisperModel([2: state, 3: heads, 4: layers, 6: state, 7: heads, 8: layers], in: folder)
            #expect(Self.validationError(path) == nil, "state \(state)")
        }
        let turbo = try Self.whisperModel([2: 1280, 3: 20, 4: 32, 6: 1280, 7: 20, 8: 4], in: folder)
        #expect(Self.validationError(turbo) == nil)
        for fileType: Int32 in [0, 1, 2, 7, 8, 14, 1002, 2008] {
            #expect(Self.validationError(try Self.whisperModel([10: fileType], in: folder)) == nil, "ftype \(fileType)")
        }
    }

    @Test("a mel filter bank that does not fit n_mels is refused, naming both")
    func melFiltersMustFitTheHeader() throws {
        let folder = try TemporaryFolder(prefix: "damaged-header")
        for patches: [Int: Int32] in [[48: 79], [48: 128], [52: 200], [52: .max]] {
            let path = try Self.patched("for-tests-ggml-tiny.en.bin", patches, in: folder)
            let error = Self.validationError(path)
            #expect(error?.code == .unavailable && error?.message.contains("mel filter bank") == true,
                    "\(patches): \(error?.message ?? "accepted")")
        }
    }

    static let sileroFields = ["n_window", "n_context", "n_encoder_layers"]
        + (0..<4).flatMap { ["encoder_in_channels[\($0)]", "encoder_out_channels[\($0)]", "kernel_sizes[\($0)]"] }
        + ["lstm_input_size", "lstm_hidden_size", "final_conv_in", "final_conv_out"]

    @Test("every Silero VAD header field other than the model's own is refused, naming the field")
    func everySileroFieldIsChecked() throws {
        let folder = try TemporaryFolder(prefix: "damaged-header")
        let fixture = "for-tests-silero-v6.2.0-ggml.bin"
        guard case .success = SileroVADModelHeader.read(Self.fixtures.appendingPathComponent(fixture).path) else {
            Issue.record("the Silero fixture is refused")
            return
        }
        // magic, length 10, "silero-16k", 3 version numbers: the fields start at byte 30.
        for (index, field) in Self.sileroFields.enumerated() {
            for value: Int32 in [0, -1, 2, .max] {
                let path = try Self.patched(fixture, [30 + 4 * index: value], in: folder)
                guard case .failure(.notSilero(let reason)) = SileroVADModelHeader.read(path) else {
                    Issue.record("\(field) = \(value) accepted")
                    continue
                }
                #expect(reason.contains("\(field) is \(value)"), "\(field) = \(value): \(reason)")
            }
        }
    }
}
