import AudioGraphCore
import CWhisper
import Foundation

/// A ggml whisper model file's header, read without loading the model (a build-time check).
public struct WhisperModelHeader: Sendable, Equatable {
    /// `ggml` in whisper.cpp's files (little-endian int32).
    public static let magic: UInt32 = 0x6767_6d6c
    /// The file's 11 hyperparameters.
    public var hyperparameters: WhisperHyperparameters
    /// `n_vocab`.
    public var vocabularySize: Int { hyperparameters.vocabularySize }
    /// `n_audio_ctx`.
    public var audioContext: Int { hyperparameters.audioContext }
    /// `n_mels`.
    public var melBands: Int { hyperparameters.mels }

    /// Multilingual models have 51865 tokens or more (whisper.cpp's rule); `.en` models 51864.
    public var isMultilingual: Bool { hyperparameters.isMultilingual }

    /// Why a file is not a usable whisper model.
    public enum Problem: Error, Equatable {
        case missing
        case notAFile
        case unreadable
        case notWhisper(String)
        /// A header field outside what a whisper model has (whisper.cpp would crash on it or refuse it).
        case implausibleField(WhisperHyperparameters.FieldProblem)
    }

    /// The mel filter bank's columns: 1 + 400 / 2 frequency bins (whisper.cpp's `n_fft`).
    static let melFilterColumns = 201

    /// Reads the magic and the 11 hyperparameters, checks each against what a whisper model has
    /// (`WhisperHyperparameters.implausibleField`: whisper.cpp trusts them and a damaged one crashes the
    /// process), and checks that the mel filters and the vocabulary after them are complete and fit the header
    /// (whisper.cpp reads a file cut short there without noticing; one cut in its tensors it refuses when it
    /// loads).
    public static func read(_ path: String) -> Result<WhisperModelHeader, Problem> {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { return .failure(.missing) }
        guard !isDirectory.boolValue else { return .failure(.notAFile) }
        guard let handle = FileHandle(forReadingAtPath: path) else { return .failure(.unreadable) }
        defer { try? handle.close() }
        // The header, the mel filters (80 × 201 floats) and the vocabulary (about 0.5 MB) come first.
        guard let data = try? handle.read(upToCount: 4 << 20) else { return .failure(.unreadable) }
        var reader = LittleEndianReader(data)
        guard let magic = reader.uint32() else { return .failure(.notWhisper("too short for a ggml header")) }
        guard magic == Self.magic else { return .failure(.notWhisper("no ggml magic")) }
        guard let values = reader.int32s(11), let hyperparameters = WhisperHyperparameters(fields: values) else {
            return .failure(.notWhisper("too short for a ggml header"))
        }
        if let field = hyperparameters.implausibleField() { return .failure(.implausibleField(field)) }
        guard let filter = reader.int32s(2) else { return .failure(.notWhisper("the file ends inside its mel filters: it is cut short")) }
        guard filter == [hyperparameters.mels, Self.melFilterColumns] else {
            return .failure(.notWhisper("its mel filter bank is \(filter[0]) × \(filter[1]); a whisper model with "
                + "n_mels \(hyperparameters.mels) has \(hyperparameters.mels) × \(Self.melFilterColumns)"))
        }
        guard reader.skip(filter[0] * filter[1] * 4),
              let tokens = reader.int32s(1)?.first, tokens > 0, tokens <= hyperparameters.vocabularySize else {
            return .failure(.notWhisper("the file ends inside its mel filters: it is cut short"))
        }
        for _ in 0..<tokens {
            guard let length = reader.int32s(1)?.first, length >= 0, reader.skip(length) else {
                return .failure(.notWhisper("the file ends inside its vocabulary: it is cut short"))
            }
        }
        return .success(WhisperModelHeader(hyperparameters: hyperparameters))
    }
}

/// Reads little-endian integers from bytes, front to back.
private struct LittleEndianReader {
    let data: Data
    var offset = 0

    init(_ data: Data) { self.data = data }

    mutating func uint32() -> UInt32? {
        guard offset + 4 <= data.count else { return nil }
        let start = data.startIndex + offset
        offset += 4
        return data[start..<(start + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func int32s(_ count: Int) -> [Int]? {
        var values: [Int] = []
        for _ in 0..<count {
            guard let value = uint32() else { return nil }
            values.append(Int(Int32(bitPattern: value)))
        }
        return values
    }

    mutating func skip(_ count: Int) -> Bool {
        guard count >= 0, offset + count <= data.count else { return false }
        offset += count
        return true
    }
}

/// One loaded whisper model (a `whisper_context` made without a default state): read-only once loaded, so
/// states made from it may decode on different threads at once (whisper.cpp's `whisper_full_with_state`).
final class WhisperModel: @unchecked Sendable {
    let context: OpaquePointer
    let path: String
    let isMultilingual: Bool
    /// Tokens at or above this id are special (end of text, timestamps, languages, …).
    let endOfText: Int32
    /// The encoder's window in frames (`n_audio_ctx`: 1500, 30 s).
    let audioContext: Int

    /// Loads the model; nil when whisper.cpp refuses the file.
    init?(path: String) {
        WhisperLog.install()
        var parameters = whisper_context_default_params()
        parameters.use_gpu = false
        // Off: with flash attention a decode in a fitted window would read stale frames (WhisperAudioContext).
        parameters.flash_attn = false
        guard let context = whisper_init_from_file_with_params_no_state(path, parameters) else { return nil }
        self.context = context
        self.path = path
        isMultilingual = whisper_is_multilingual(context) != 0
        endOfText = whisper_token_eot(context)
        audioContext = Int(whisper_model_n_audio_ctx(context))
    }

    deinit {
        whisper_free(context)
    }

    /// A decoding state (KV caches, mel buffer, results) of this model; nil when whisper.cpp cannot allocate one.
    func makeState() -> WhisperState? {
        guard let state = whisper_init_state(context) else { return nil }
        return WhisperState(model: self, pointer: state)
    }
}

/// A `whisper_state`: one decode at a time (confinement: whoever owns it), its model kept alive while it lives.
final class WhisperState: @unchecked Sendable {
    let model: WhisperModel
    let pointer: OpaquePointer

    fileprivate init(model: WhisperModel, pointer: OpaquePointer) {
        self.model = model
        self.pointer = pointer
    }

    deinit {
        whisper_free_state(pointer)
    }
}
