import Foundation

/// The 11 hyperparameters at the start of a whisper.cpp ggml file, in file order.
public struct WhisperHyperparameters: Sendable, Equatable, Codable {
    /// `n_vocab`: text and special tokens (51864 English only, 51865 multilingual).
    public var vocabularySize: Int
    /// `n_audio_ctx`: encoder positions (1500 for 30 s).
    public var audioContext: Int
    /// `n_audio_state`: the encoder's width.
    public var audioState: Int
    /// `n_audio_head`: encoder attention heads.
    public var audioHeads: Int
    /// `n_audio_layer`: encoder blocks (whisper.cpp names the model by it: 4 tiny, 6 base, …).
    public var audioLayers: Int
    /// `n_text_ctx`: decoder positions (448).
    public var textContext: Int
    /// `n_text_state`: the decoder's width (equal to the encoder's).
    public var textState: Int
    /// `n_text_head`: decoder attention heads.
    public var textHeads: Int
    /// `n_text_layer`: decoder blocks.
    public var textLayers: Int
    /// `n_mels`: mel bands of the input (80).
    public var mels: Int
    /// 0: all float32; 1: big tensors float16.
    public var fileType: Int

    /// The values as named (file order).
    public init(vocabularySize: Int, audioContext: Int, audioState: Int, audioHeads: Int, audioLayers: Int,
                textContext: Int, textState: Int, textHeads: Int, textLayers: Int, mels: Int, fileType: Int) {
        self.vocabularySize = vocabularySize
        self.audioContext = audioContext
        self.audioState = audioState
        self.audioHeads = audioHeads
        self.audioLayers = audioLayers
        self.textContext = textContext
        self.textState = textState
        self.textHeads = textHeads
        self.textLayers = textLayers
        self.mels = mels
        self.fileType = fileType
    }

    /// The values in file order.
    public var fields: [Int] {
        [vocabularySize, audioContext, audioState, audioHeads, audioLayers,
         textContext, textState, textHeads, textLayers, mels, fileType]
    }

    /// Whether the vocabulary is the multilingual one (whisper.cpp's rule).
    public var isMultilingual: Bool { vocabularySize >= 51865 }

    /// The values of `fields` (file order, 11 of them).
    init?(fields: [Int]) {
        guard fields.count == 11 else { return nil }
        self.init(vocabularySize: fields[0], audioContext: fields[1], audioState: fields[2], audioHeads: fields[3],
                  audioLayers: fields[4], textContext: fields[5], textState: fields[6], textHeads: fields[7],
                  textLayers: fields[8], mels: fields[9], fileType: fields[10])
    }

    /// Reads the magic and the hyperparameters of a ggml model file; nil if it is not one.
    public static func read(ggmlFile path: String) -> WhisperHyperparameters? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 48), data.count == 48 else { return nil }
        let values = stride(from: 0, to: 48, by: 4).map { offset in
            data[data.startIndex + offset..<data.startIndex + offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        guard values[0] == GGMLWriter.magic else { return nil }
        return WhisperHyperparameters(fields: values.dropFirst().map { Int(Int32(bitPattern: $0)) })
    }
}

extension WhisperHyperparameters {
    /// whisper.cpp's names of the fields, in file order (`n_vocab`, `n_audio_ctx`, …).
    public static let fieldNames = ["n_vocab", "n_audio_ctx", "n_audio_state", "n_audio_head", "n_audio_layer",
                                    "n_text_ctx", "n_text_state", "n_text_head", "n_text_layer", "n_mels", "ftype"]

    /// A header field outside what a whisper model has: whisper.cpp trusts these values (a zero head count
    /// divides by zero, a huge width or vocabulary aborts in an allocation), so a damaged one must stop the file
    /// before whisper.cpp reads it.
    public struct FieldProblem: Error, Sendable, Equatable, CustomStringConvertible {
        /// whisper.cpp's name of the field (`n_audio_head`).
        public let field: String
        /// The value in the file.
        public let value: Int
        /// What a whisper model has there.
        public let expected: String

        public var description: String { "its header's \(field) is \(value); a whisper model has \(expected)" }
    }

    /// One of Whisper's model sizes: the encoder's width, heads and blocks (OpenAI's `ModelDimensions`).
    struct Shape: Sendable {
        let name: String
        let state: Int
        let heads: Int
        let layers: Int
    }

    /// tiny, base, small, medium and large (large-v3 and turbo too: turbo only has fewer decoder blocks).
    static let shapes = [Shape(name: "tiny", state: 384, heads: 6, layers: 4),
                         Shape(name: "base", state: 512, heads: 8, layers: 6),
                         Shape(name: "small", state: 768, heads: 12, layers: 12),
                         Shape(name: "medium", state: 1024, heads: 16, layers: 24),
                         Shape(name: "large", state: 1280, heads: 20, layers: 32)]

    /// ggml's file types whisper.cpp maps to a tensor type (`ggml_ftype_to_ggml_type`; any other aborts): f32,
    /// f16, the quantized ones, bf16; plus 1000 × the quantization version (0 to 2).
    static let fileTypes: Set<Int> = Set([0, 1, 2, 3] + Array(7...27))

    /// The first field (in file order) outside what a whisper model has, or nil when all are plausible: the
    /// vocabulary 51864 to 51866 tokens, the contexts 1500 and 448, the encoder's width, heads and blocks those
    /// of one of Whisper's sizes, the decoder as wide with as many heads and 1 to as many blocks, 80 or 128 mel
    /// bands and a known file type.
    public func implausibleField() -> FieldProblem? {
        func problem(_ index: Int, _ expected: String) -> FieldProblem {
            FieldProblem(field: Self.fieldNames[index], value: fields[index], expected: expected)
        }
        guard (51864...51866).contains(vocabularySize) else { return problem(0, "51864 to 51866") }
        guard audioContext == 1500 else { return problem(1, "1500") }
        guard let shape = Self.shapes.first(where: { $0.state == audioState }) else {
            return problem(2, Self.shapes.map { "\($0.state) (\($0.name))" }.joined(separator: ", "))
        }
        guard audioHeads == shape.heads else { return problem(3, "\(shape.heads) with n_audio_state \(shape.state) (\(shape.name))") }
        guard audioLayers == shape.layers else { return problem(4, "\(shape.layers) with n_audio_state \(shape.state) (\(shape.name))") }
        guard textContext == 448 else { return problem(5, "448") }
        guard textState == audioState else { return problem(6, "n_audio_state's value, \(audioState)") }
        guard textHeads == audioHeads else { return problem(7, "n_audio_head's value, \(audioHeads)") }
        guard (1...audioLayers).contains(textLayers) else { return problem(8, "1 to n_audio_layer's value, \(audioLayers)") }
        guard mels == 80 || mels == 128 else { return problem(9, "80 or 128") }
        guard fileType >= 0, (0...2).contains(fileType / 1000), Self.fileTypes.contains(fileType % 1000) else {
            return problem(10, "0 (f32), 1 (f16) or a ggml quantization type (2, 3, 7 to 27, plus 1000 × its version)")
        }
        return nil
    }
}
