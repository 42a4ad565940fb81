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

    /// Reads the magic and the hyperparameters of a ggml model file; nil if it is not one.
    public static func read(ggmlFile path: String) -> WhisperHyperparameters? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let data = try? handle.read(upToCount: 48), data.count == 48 else { return nil }
        let values = stride(from: 0, to: 48, by: 4).map { offset in
            data[data.startIndex + offset..<data.startIndex + offset + 4].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        guard values[0] == GGMLWriter.magic else { return nil }
        let fields = values.dropFirst().map { Int(Int32(bitPattern: $0)) }
        return WhisperHyperparameters(vocabularySize: fields[0], audioContext: fields[1], audioState: fields[2],
                                      audioHeads: fields[3], audioLayers: fields[4], textContext: fields[5],
                                      textState: fields[6], textHeads: fields[7], textLayers: fields[8],
                                      mels: fields[9], fileType: fields[10])
    }
}
