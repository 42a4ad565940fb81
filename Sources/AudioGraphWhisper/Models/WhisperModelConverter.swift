import Foundation

/// Converts a Whisper model in CTranslate2 format (a folder with `model.bin` and `vocabulary.txt`) to one
/// whisper.cpp ggml file, tensor by tensor (the model is never held in memory whole).
///
/// The file is what whisper.cpp's `models/convert-pt-to-ggml.py` writes for the same model: big tensors float16;
/// 1-D tensors, conv biases (reshaped to [n, 1]) and positional embeddings float32; Slaney mel filters; the
/// text vocabulary as raw bytes (whisper.cpp adds the special tokens itself).
public enum WhisperModelConverter {
    /// Reads the model in `folder` and writes `outputPath`, which must not exist yet. Returns the hyperparameters
    /// written. The file is written beside `outputPath` under a temporary name and renamed into place once
    /// complete: on failure (a full disk included) or when killed, nothing is left at `outputPath`.
    @discardableResult
    public static func convert(ctranslate2Folder folder: String,
                               to outputPath: String) throws(ModelConversionError) -> WhisperHyperparameters {
        let reader = try CTranslate2Reader(path: folder + "/model.bin")
        let output = try PartialFile(beside: outputPath)
        let hyperparameters = try write(reader, folder: folder, into: output)
        try output.commit(replacing: false)
        return hyperparameters
    }

    /// Converts the model `reader` reads (its vocabulary in `folder`) into `output`, complete and synced; the
    /// caller commits it.
    static func write(_ reader: CTranslate2Reader, folder: String,
                      into output: PartialFile) throws(ModelConversionError) -> WhisperHyperparameters {
        guard reader.specName == "WhisperSpec" else {
            throw .corrupt(path: reader.path, reason: "spec \(reader.specName), expected WhisperSpec")
        }
        let hyperparameters = try self.hyperparameters(of: reader)
        let tokens = try textVocabulary(path: folder + "/vocabulary.txt")
        let writer = GGMLWriter(output)
        try writer.writeHeader(hyperparameters)
        let bins = 400 / 2 + 1
        try writer.writeMelFilters(MelFilters.slaney(mels: hyperparameters.mels), rows: hyperparameters.mels, columns: bins)
        try writer.writeVocabulary(tokens)
        for plan in tensorPlans(hyperparameters) {
            try write(plan, from: reader, to: writer)
        }
        try writer.complete()
        return hyperparameters
    }

    /// The ggml hyperparameters of a CTranslate2 Whisper model, from its tensors' shapes and head counts.
    public static func hyperparameters(of reader: CTranslate2Reader) throws(ModelConversionError) -> WhisperHyperparameters {
        let conv1 = try reader.require("encoder/conv1/weight")
        let embeddings = try reader.require("decoder/embeddings/weight")
        let audioPositions = try reader.require("encoder/position_encodings/encodings")
        let textPositions = try reader.require("decoder/position_encodings/encodings")
        guard conv1.shape.count == 3, embeddings.shape.count == 2, audioPositions.shape.count == 2,
              textPositions.shape.count == 2 else {
            throw .corrupt(path: reader.path, reason: "unexpected tensor ranks")
        }
        func layers(_ prefix: String) -> Int {
            var count = 0
            while reader.variable("\(prefix)/layer_\(count)/ffn/linear_0/weight") != nil { count += 1 }
            return count
        }
        let result = WhisperHyperparameters(
            vocabularySize: embeddings.shape[0], audioContext: audioPositions.shape[0], audioState: conv1.shape[0],
            audioHeads: try reader.integerScalar("encoder/num_heads"), audioLayers: layers("encoder"),
            textContext: textPositions.shape[0], textState: embeddings.shape[1],
            textHeads: try reader.integerScalar("decoder/num_heads"), textLayers: layers("decoder"),
            mels: conv1.shape[1], fileType: 1)
        guard result.audioLayers > 0, result.textLayers > 0, result.audioState == result.textState,
              result.audioHeads > 0, result.textHeads > 0 else {
            throw .corrupt(path: reader.path, reason: "inconsistent dimensions \(result.fields)")
        }
        return result
    }

    /// The text tokens of `vocabulary.txt` (those before `<|endoftext|>`) as raw bytes.
    public static func textVocabulary(path: String) throws(ModelConversionError) -> [[UInt8]] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")
        }
        var tokens: [[UInt8]] = []
        // Split on the newline byte only: the byte-level alphabet has no raw control characters.
        for (index, line) in data.split(separator: 0x0a, omittingEmptySubsequences: false).enumerated() {
            guard let text = String(data: Data(line), encoding: .utf8) else {
                throw .corrupt(path: path, reason: "line \(index + 1) is not UTF-8")
            }
            if text == "<|endoftext|>" { return tokens }
            guard let bytes = ByteLevelBPE.bytes(ofToken: text) else {
                throw .corrupt(path: path, reason: "line \(index + 1) is not a byte-level BPE token")
            }
            tokens.append(bytes)
        }
        throw .corrupt(path: path, reason: "no <|endoftext|> token")
    }
}
