import Foundation

/// Writes whisper.cpp's (legacy) ggml model file, the layout of whisper.cpp's `models/convert-pt-to-ggml.py`:
/// magic, 11 int32 hyperparameters, the mel filter bank, the vocabulary, then the tensors one after another.
/// Everything is little-endian; data goes straight to a temporary file beside the destination, tensor by tensor,
/// renamed into place by `finish` (`PartialFile`): a failed or killed conversion leaves nothing there.
public final class GGMLWriter {
    /// `ggml` in hex, the file's first int32.
    public static let magic: UInt32 = 0x6767_6d6c

    /// Element types of ggml tensors written here.
    public enum TensorType: Int32, Sendable {
        case float32 = 0, float16 = 1
    }

    let output: PartialFile
    private var buffer = Data()

    /// Writes `path`, which must not exist yet when `finish` renames the file into place.
    public convenience init(creating path: String) throws(ModelConversionError) {
        self.init(try PartialFile(beside: path))
    }

    /// Writes into `output`; its owner commits it (after `complete`).
    init(_ output: PartialFile) {
        self.output = output
    }

    /// The header: magic and the hyperparameters in whisper.cpp's order.
    public func writeHeader(_ hyperparameters: WhisperHyperparameters) throws(ModelConversionError) {
        append(GGMLWriter.magic)
        for value in hyperparameters.fields { append(Int32(value)) }
        try flushIfLarge()
    }

    /// The mel filter bank: rows, columns, then the weights row by row as float32.
    public func writeMelFilters(_ weights: [Float], rows: Int, columns: Int) throws(ModelConversionError) {
        append(Int32(rows))
        append(Int32(columns))
        for weight in weights { append(weight.bitPattern) }
        try flushIfLarge()
    }

    /// The vocabulary: count, then each token as int32 length and raw bytes.
    public func writeVocabulary(_ tokens: [[UInt8]]) throws(ModelConversionError) {
        append(Int32(tokens.count))
        for token in tokens {
            append(Int32(token.count))
            buffer.append(contentsOf: token)
        }
        try flushIfLarge()
    }

    /// Raw int32 values (little-endian), for headers of other ggml layouts (Silero VAD's).
    public func writeInt32s(_ values: [Int32]) throws(ModelConversionError) {
        for value in values { append(value) }
        try flushIfLarge()
    }

    /// Raw bytes, for headers of other ggml layouts.
    public func writeBytes(_ bytes: [UInt8]) throws(ModelConversionError) {
        buffer.append(contentsOf: bytes)
        try flushIfLarge()
    }

    /// One tensor: int32 rank, name length, type; dimensions innermost first; the name; the data (already in
    /// `type`'s little-endian encoding). `shape` is outermost first, as in PyTorch and CTranslate2.
    public func writeTensor(name: String, shape: [Int], type: TensorType, data: Data) throws(ModelConversionError) {
        let nameBytes = Array(name.utf8)
        append(Int32(shape.count))
        append(Int32(nameBytes.count))
        append(type.rawValue)
        for dimension in shape.reversed() { append(Int32(dimension)) }
        buffer.append(contentsOf: nameBytes)
        try flushIfLarge(threshold: 0)
        try output.write(data)
    }

    /// Flushes and syncs the file, then renames it into place (never over a file that appeared meanwhile).
    public func finish() throws(ModelConversionError) {
        try complete()
        try output.commit(replacing: false)
    }

    /// Flushes and syncs the file, leaving it under its temporary name for the owner of `output` to commit.
    func complete() throws(ModelConversionError) {
        try flushIfLarge(threshold: 0)
        try output.sync()
    }

    private func append(_ value: Int32) { append(UInt32(bitPattern: value)) }

    private func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    private func flushIfLarge(threshold: Int = 1 << 20) throws(ModelConversionError) {
        guard buffer.count > threshold else { return }
        try output.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }
}
