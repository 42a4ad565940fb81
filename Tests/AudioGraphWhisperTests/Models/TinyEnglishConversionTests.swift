/// Issue 15, install (model conversion): the real tiny.en, converted from its CTranslate2 wheel in Swift, has
/// whisper.cpp's header, filters and vocabulary, and decodes real speech through whisper.cpp's C API.
import AudioGraphIO
import AudioGraphTestKit
import CWhisper
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.serialized, .ownThreads) struct TinyEnglishConversionTests {
    @Test func hyperparametersFiltersAndVocabularyAreWhisperCpps() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-models")
        let model = try ModelTestSupport.unpackTinyEnglish(into: folder)
        let output = folder.path("ggml-tiny.en.bin")
        let written = try WhisperModelConverter.convert(ctranslate2Folder: model, to: output)
        let converted = try ModelTestSupport.readPreamble(output)
        // magic, then n_vocab, n_audio_ctx, n_audio_state, n_audio_head, n_audio_layer, n_text_ctx, n_text_state,
        // n_text_head, n_text_layer, n_mels, ftype (f16): tiny.en's dimensions.
        #expect(converted.fields == [0x6767_6d6c, 51864, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1])
        #expect(written.fields == converted.fields.dropFirst().map(Int.init))
        #expect(WhisperHyperparameters.read(ggmlFile: output) == written)
        #expect(!written.isMultilingual)

        // whisper.cpp's stand-in tiny.en has the same header, filters and vocabulary (its converter wrote the
        // vocabulary as text, so bytes that are not UTF-8 on their own became U+FFFD there; here they are raw).
        let reference = try ModelTestSupport.readPreamble(try ModelTestSupport.fixture("for-tests-ggml-tiny.en.bin"))
        #expect(converted.fields == reference.fields)
        #expect(converted.filters == MelFilters.slaney())
        #expect(zip(converted.filters, reference.filters).allSatisfy { abs($0 - $1) < 1e-8 })
        #expect(converted.tokens.count == 50256 && reference.tokens.prefix(50256).count == 50256)
        var rawBytesTokens = 0
        for (index, token) in converted.tokens.enumerated() {
            let lossy = Array(String(decoding: token, as: UTF8.self).utf8)
            if lossy != token { rawBytesTokens += 1 }
            #expect(lossy == reference.tokens[index], "token \(index)")
        }
        #expect(rawBytesTokens == 344)
        #expect(converted.tokens[220] == [0x20] && converted.tokens[198] == [0x0a] && converted.tokens[1169] == Array("the".utf8))
    }

    @Test func theConvertedModelDecodesRealSpeech() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-models")
        let output = folder.path("ggml-tiny.en.bin")
        try WhisperModelConverter.convert(ctranslate2Folder: try ModelTestSupport.unpackTinyEnglish(into: folder), to: output)
        let decoder = try GreedyDecoder(model: output)
        let jfk = try decoder.transcribe(try ModelTestSupport.fixture("jfk.wav"))
        #expect(WordErrorRate.normalize(jfk) == WordErrorRate.normalize(
            "and so my fellow americans ask not what your country can do for you ask what you can do for your country"),
            "jfk.wav: \(jfk)")
        let librivox = try decoder.transcribe(try ModelTestSupport.fixture("librivox_0890.wav"))
        #expect(WordErrorRate.errors(reference: "unless to be rather cold hearted and rather selfish is to be ill disposed",
                                    hypothesis: librivox).errors <= 1, "librivox_0890.wav: \(librivox)")
    }

    /// Speech the converter was never looked at with: espeak-ng, made now, resampled to 16 kHz with sox.
    @Test func theConvertedModelDecodesUnseenSyntheticSpeech() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-models")
        let output = folder.path("ggml-tiny.en.bin")
        try WhisperModelConverter.convert(ctranslate2Folder: try ModelTestSupport.unpackTinyEnglish(into: folder), to: output)
        let sentence = "please send the quarterly report to the finance team before friday"
        let raw = folder.path("raw.wav"), speech = folder.path("speech.wav")
        try ModelTestSupport.runTool(["espeak-ng", "-v", "en-us", "-s", "150", "-w", raw, sentence])
        try ModelTestSupport.runTool(["sox", raw, "-r", "16000", "-c", "1", "-b", "16", speech])
        let heard = try GreedyDecoder(model: output).transcribe(speech)
        #expect(WordErrorRate.errors(reference: sentence, hypothesis: heard).errors <= 2, "espeak-ng: \(heard)")
    }
}

/// whisper.cpp through its C API, greedy, one thread pair, logs silenced: just enough to check a model file.
final class GreedyDecoder {
    private let context: OpaquePointer

    init(model path: String) throws {
        // The engine's process-wide log gate (quiet unless a verbose recognizer lives); a callback of its own here
        // would replace the gate for every later test in the process.
        WhisperLog.install()
        var parameters = whisper_context_default_params()
        parameters.use_gpu = false
        guard let context = whisper_init_from_file_with_params(path, parameters) else {
            throw ModelTestError("whisper.cpp could not load \(path)")
        }
        self.context = context
    }

    deinit { whisper_free(context) }

    func transcribe(_ wav: String) throws -> String {
        let reader = try SoundFileReader(path: wav)
        guard reader.sampleRate == 16_000, reader.channels == 1 else { throw ModelTestError("\(wav) is not 16 kHz mono") }
        var samples: [Float] = []
        var block = [Float](repeating: 0, count: 16_000)
        while true {
            let got = try block.withUnsafeMutableBufferPointer { try reader.read(into: $0, maxFrames: 16_000) }
            if got == 0 { break }
            samples += block[0..<got]
        }
        var parameters = whisper_full_default_params(WHISPER_SAMPLING_GREEDY)
        parameters.n_threads = 2
        parameters.no_timestamps = true
        parameters.temperature_inc = 0
        parameters.print_progress = false
        parameters.print_realtime = false
        parameters.print_timestamps = false
        parameters.print_special = false
        let status = "en".withCString { language in
            parameters.language = language
            return whisper_full(context, parameters, samples, Int32(samples.count))
        }
        guard status == 0 else { throw ModelTestError("whisper_full failed (\(status)) on \(wav)") }
        return (0..<whisper_full_n_segments(context)).map { String(cString: whisper_full_get_segment_text(context, $0)) }
            .joined()
    }
}

