import Foundation

/// Writes whisper.cpp's (legacy) ggml model file, the layout of whisper.cpp's `models/convert-pt-to-ggml.py`:
/// magic, 11 int32 hyperparameters, the mel filter bank, the vocabulary, then the tensors one after another.
/// Everything is little-endian; data goes straight to the file, tensor by tensor.
public final class GGMLWriter {
    /// `ggml` in hex, the file's first int32.
    public static let magic: UInt32 = 0x6767_6d6c

    /// Element types of ggml tensors written here.
    public enum TensorType: Int32, Sendable {
        case float32 = 0, float16 = 1
    }

    private let handle: FileHandle
    private let path: String
    private var buffer = Data()

    /// Creates `path`, which must not exist yet (the caller picks a fresh temporary name).
    public init(creating path: String) throws(ModelConversionError) {
        self.path = path
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .writeFailed(path: path, reason: String(cString: strerror(errno)))
        }
        handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
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
        do {
            try handle.write(contentsOf: data)
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }

    /// Flushes, syncs the file to disk and closes it.
    public func finish() throws(ModelConversionError) {
        try flushIfLarge(threshold: 0)
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
    }

    private func append(_ value: Int32) { append(UInt32(bitPattern: value)) }

    private func append(_ value: UInt32) {
        withUnsafeBytes(of: value.littleEndian) { buffer.append(contentsOf: $0) }
    }

    private func flushIfLarge(threshold: Int = 1 << 20) throws(ModelConversionError) {
        guard buffer.count > threshold else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw .writeFailed(path: path, reason: "\(error)")
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
