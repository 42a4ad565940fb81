import Foundation

/// Converts Silero VAD's 16 kHz weights as the `silero-vad` pip wheel ships them
/// (`silero_vad/data/silero_vad_16k.safetensors`) to the ggml file whisper.cpp's VAD API loads: the layout of
/// whisper.cpp's `models/convert-silero-vad-to-ggml.py`.
///
/// - Header: magic, the model type `silero-16k` (int32 length, bytes), the version (3 int32), window 512,
///   context 64, 4 encoder layers (in, out, kernel each), LSTM input and hidden size, final conv in and out.
/// - Tensors, in whisper.cpp's order and names: the 4 encoder convolutions (weight float16, bias float32), the
///   LSTM cell (float32), the final 1×1 convolution (weight float16 squeezed to [128], bias float32 as a
///   0-dimensional tensor), and the STFT basis (float16, [258, 1, 256]).
///
/// The conversion reads each tensor from the file as it writes it (the whole model is 1.2 MB).
public enum SileroVADConverter {
    /// Safetensors name → whisper.cpp name, shape as written (outermost first, squeezed as the script does),
    /// and element type.
    struct Tensor {
        let source: String
        let target: String
        let shape: [Int]
        let type: GGMLWriter.TensorType
    }

    static let encoderChannels = [(129, 128), (128, 64), (64, 64), (64, 128)]

    static let tensors: [Tensor] = {
        var list: [Tensor] = []
        for (index, (input, output)) in encoderChannels.enumerated() {
            list.append(Tensor(source: "conv\(index + 1).weight", target: "_model.encoder.\(index).reparam_conv.weight",
                               shape: [output, input, 3], type: .float16))
            list.append(Tensor(source: "conv\(index + 1).bias", target: "_model.encoder.\(index).reparam_conv.bias",
                               shape: [output], type: .float32))
        }
        for (name, shape) in [("weight_ih", [512, 128]), ("weight_hh", [512, 128]), ("bias_ih", [512]), ("bias_hh", [512])] {
            list.append(Tensor(source: "lstm_cell.\(name)", target: "_model.decoder.rnn.\(name)", shape: shape, type: .float32))
        }
        list.append(Tensor(source: "final_conv.weight", target: "_model.decoder.decoder.2.weight", shape: [128], type: .float16))
        list.append(Tensor(source: "final_conv.bias", target: "_model.decoder.decoder.2.bias", shape: [], type: .float32))
        list.append(Tensor(source: "stft_conv.weight", target: "_model.stft.forward_basis_buffer", shape: [258, 1, 256],
                           type: .float16))
        return list
    }()

    /// Writes the ggml file `output` (which must not exist) from `safetensors`, stamped with `version`
    /// ("6.2.3": the wheel's version, as the script writes silero-vad's own).
    /// Written beside `output` and renamed into place once complete: on failure nothing is left there.
    public static func convert(safetensors path: String, version: String, to output: String) throws(ModelConversionError) {
        let partial = try PartialFile(beside: output)
        try write(safetensors: path, version: version, into: partial)
        try partial.commit(replacing: false)
    }

    /// Converts into `output`, complete and synced; the caller commits it.
    static func write(safetensors path: String, version: String, into output: PartialFile) throws(ModelConversionError) {
        let parts = version.split(separator: ".").compactMap { Int32($0) }
        guard parts.count == 3 else { throw .unsupported(path: path, reason: "version \(version) is not MAJOR.MINOR.PATCH") }
        let file = try SafetensorsFile(path: path)
        let writer = GGMLWriter(output)
        try writer.writeInt32s([Int32(bitPattern: GGMLWriter.magic)])
        let type = Array("silero-16k".utf8)
        try writer.writeInt32s([Int32(type.count)])
        try writer.writeBytes(type)
        try writer.writeInt32s(parts + SileroVADModelHeader.fields.map { Int32($0.value) })
        for tensor in tensors {
            let values = try file.float32s(tensor.source, count: tensor.shape.reduce(1, *))
            var data = Data()
            switch tensor.type {
            case .float32:
                data.reserveCapacity(values.count * 4)
                for value in values { withUnsafeBytes(of: value.bitPattern.littleEndian) { data.append(contentsOf: $0) } }
            case .float16:
                data.reserveCapacity(values.count * 2)
                for value in values { withUnsafeBytes(of: HalfFloat.bits(from: value).littleEndian) { data.append(contentsOf: $0) } }
            }
            try writer.writeTensor(name: tensor.target, shape: tensor.shape, type: tensor.type, data: data)
        }
        try writer.complete()
    }
}

/// A safetensors file: an 8-byte little-endian header length, a JSON header naming each tensor's dtype, shape
/// and byte range, then the data.
struct SafetensorsFile {
    let path: String
    private let data: Data
    private let header: [String: Any]
    private let dataStart: Int

    init(path: String) throws(ModelConversionError) {
        self.path = path
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .unreadable(path: path, reason: "no such file, or not readable")
        }
        guard data.count >= 8 else { throw .corrupt(path: path, reason: "shorter than a safetensors header") }
        var length: UInt64 = 0
        for index in 0..<8 { length |= UInt64(data[data.startIndex + index]) << (8 * UInt64(index)) }
        guard length < UInt64(data.count - 8) else { throw .corrupt(path: path, reason: "header longer than the file") }
        let headerBytes = data.subdata(in: (data.startIndex + 8)..<(data.startIndex + 8 + Int(length)))
        guard let json = try? JSONSerialization.jsonObject(with: headerBytes) as? [String: Any] else {
            throw .corrupt(path: path, reason: "the header is not a JSON object")
        }
        self.data = data
        header = json
        dataStart = 8 + Int(length)
    }

    /// The float32 values of tensor `name`, which must hold `count` of them.
    func float32s(_ name: String, count: Int) throws(ModelConversionError) -> [Float] {
        guard let entry = header[name] as? [String: Any] else { throw .corrupt(path: path, reason: "no tensor \(name)") }
        guard entry["dtype"] as? String == "F32" else {
            throw .unsupported(path: path, reason: "tensor \(name) is \(entry["dtype"] ?? "?"), not F32")
        }
        guard let offsets = entry["data_offsets"] as? [Int], offsets.count == 2,
              offsets[0] >= 0, offsets[1] - offsets[0] == count * 4, dataStart + offsets[1] <= data.count else {
            throw .corrupt(path: path, reason: "tensor \(name) does not hold \(count) float32 values inside the file")
        }
        let start = data.startIndex + dataStart + offsets[0]
        return (0..<count).map { index in
            let base = start + index * 4
            let bits = UInt32(data[base]) | UInt32(data[base + 1]) << 8 | UInt32(data[base + 2]) << 16 | UInt32(data[base + 3]) << 24
            return Float(bitPattern: bits)
        }
    }
}
