import Foundation

/// How one CTranslate2 variable becomes one or more ggml tensors: fused projections are split in equal row
/// blocks; a nil target drops its block (the key projection's bias, which Whisper does not have and CTranslate2
/// stores as zeros).
struct WhisperTensorPlan {
    let source: String
    let targets: [String?]
}

extension WhisperModelConverter {
    /// Every tensor whisper.cpp loads, encoder first, in the order of Whisper's own state dict.
    static func tensorPlans(_ hyperparameters: WhisperHyperparameters) -> [WhisperTensorPlan] {
        func plan(_ source: String, _ targets: String?...) -> WhisperTensorPlan { WhisperTensorPlan(source: source, targets: targets) }
        func linear(_ source: String, _ target: String) -> [WhisperTensorPlan] {
            [plan(source + "/weight", target + ".weight"), plan(source + "/bias", target + ".bias")]
        }
        func norm(_ source: String, _ target: String) -> [WhisperTensorPlan] {
            [plan(source + "/gamma", target + ".weight"), plan(source + "/beta", target + ".bias")]
        }
        func attention(_ source: String, _ target: String) -> [WhisperTensorPlan] {
            [plan(source + "/linear_0/weight", target + ".query.weight", target + ".key.weight", target + ".value.weight"),
             plan(source + "/linear_0/bias", target + ".query.bias", nil, target + ".value.bias")]
                + linear(source + "/linear_1", target + ".out")
        }
        func crossAttention(_ source: String, _ target: String) -> [WhisperTensorPlan] {
            linear(source + "/linear_0", target + ".query")
                + [plan(source + "/linear_1/weight", target + ".key.weight", target + ".value.weight"),
                   plan(source + "/linear_1/bias", nil, target + ".value.bias")]
                + linear(source + "/linear_2", target + ".out")
        }
        func feedForward(_ source: String, _ target: String) -> [WhisperTensorPlan] {
            norm(source + "/layer_norm", target + ".mlp_ln") + linear(source + "/linear_0", target + ".mlp.0")
                + linear(source + "/linear_1", target + ".mlp.2")
        }
        var plans = [plan("encoder/position_encodings/encodings", "encoder.positional_embedding")]
        plans += linear("encoder/conv1", "encoder.conv1") + linear("encoder/conv2", "encoder.conv2")
        for layer in 0..<hyperparameters.audioLayers {
            let source = "encoder/layer_\(layer)", target = "encoder.blocks.\(layer)"
            plans += attention(source + "/self_attention", target + ".attn")
            plans += norm(source + "/self_attention/layer_norm", target + ".attn_ln")
            plans += feedForward(source + "/ffn", target)
        }
        plans += norm("encoder/layer_norm", "encoder.ln_post")
        plans += [plan("decoder/position_encodings/encodings", "decoder.positional_embedding"),
                  plan("decoder/embeddings/weight", "decoder.token_embedding.weight")]
        for layer in 0..<hyperparameters.textLayers {
            let source = "decoder/layer_\(layer)", target = "decoder.blocks.\(layer)"
            plans += attention(source + "/self_attention", target + ".attn")
            plans += norm(source + "/self_attention/layer_norm", target + ".attn_ln")
            plans += crossAttention(source + "/attention", target + ".cross_attn")
            plans += norm(source + "/attention/layer_norm", target + ".cross_attn_ln")
            plans += feedForward(source + "/ffn", target)
        }
        plans += norm("decoder/layer_norm", "decoder.ln")
        return plans
    }

    /// Whether a tensor stays float32 in the ggml file (as convert-pt-to-ggml.py decides).
    static func isFloat32(name: String, rank: Int) -> Bool {
        rank < 2 || name.hasSuffix("conv1.bias") || name.hasSuffix("conv2.bias") || name.hasSuffix("positional_embedding")
    }

    /// Reads one variable, splits it per the plan, converts each block's element type and writes it.
    static func write(_ plan: WhisperTensorPlan, from reader: CTranslate2Reader,
                      to writer: GGMLWriter) throws(ModelConversionError) {
        let variable = try reader.require(plan.source)
        guard variable.dataType == .float16 || variable.dataType == .float32 else {
            throw .unsupported(path: reader.path, reason: "\(plan.source) is \(variable.dataType) (quantized models are not supported)")
        }
        let rows = variable.shape.first ?? 1
        guard !variable.shape.isEmpty, rows % plan.targets.count == 0 else {
            throw .corrupt(path: reader.path, reason: "\(plan.source) has shape \(variable.shape)")
        }
        let data = try reader.data(of: variable)
        let blockBytes = data.count / plan.targets.count
        var blockShape = variable.shape
        blockShape[0] = rows / plan.targets.count
        for (index, target) in plan.targets.enumerated() {
            let block = plan.targets.count == 1 ? data
                : data.subdata(in: data.startIndex + index * blockBytes..<data.startIndex + (index + 1) * blockBytes)
            guard let target else {
                guard isAllZero(block, type: variable.dataType) else {
                    throw .unsupported(path: reader.path, reason: "\(plan.source) has a non-zero key bias")
                }
                continue
            }
            let shape = target.hasSuffix("conv1.bias") || target.hasSuffix("conv2.bias") ? [blockShape[0], 1] : blockShape
            if isFloat32(name: target, rank: shape.count) {
                try writer.writeTensor(name: target, shape: shape, type: .float32,
                                       data: variable.dataType == .float32 ? block : float32(fromHalf: block))
            } else {
                try writer.writeTensor(name: target, shape: shape, type: .float16,
                                       data: variable.dataType == .float16 ? block : half(fromFloat32: block))
            }
        }
    }

    private static func isAllZero(_ block: Data, type: CTranslate2Reader.DataType) -> Bool {
        let size = type.size
        return stride(from: 0, to: block.count, by: size).allSatisfy { offset in
            let start = block.startIndex + offset
            // ±0: every byte zero except the sign bit in the most significant (last) byte.
            return (0..<size).allSatisfy { block[start + $0] == 0 || ($0 == size - 1 && block[start + $0] == 0x80) }
        }
    }

    private static func float32(fromHalf block: Data) -> Data {
        var output = Data(count: block.count * 2)
        block.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                let halves = input.bindMemory(to: UInt16.self), floats = out.bindMemory(to: UInt32.self)
                for index in 0..<halves.count {
                    floats[index] = HalfFloat.float(fromBits: UInt16(littleEndian: halves[index])).bitPattern.littleEndian
                }
            }
        }
        return output
    }

    private static func half(fromFloat32 block: Data) -> Data {
        var output = Data(count: block.count / 2)
        block.withUnsafeBytes { input in
            output.withUnsafeMutableBytes { out in
                let floats = input.bindMemory(to: UInt32.self), halves = out.bindMemory(to: UInt16.self)
                for index in 0..<floats.count {
                    halves[index] = HalfFloat.bits(from: Float(bitPattern: UInt32(littleEndian: floats[index]))).littleEndian
                }
            }
        }
        return output
    }
}
