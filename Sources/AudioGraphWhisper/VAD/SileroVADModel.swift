import CWhisper
import Foundation

/// A Silero VAD model loaded through whisper.cpp's VAD API (`whisper_vad_*`): speech probabilities of 16 kHz
/// mono audio, one per window of `windowSize` samples (512: 32 ms), with the model's LSTM state carried from
/// one call to the next (`whisper_vad_detect_speech_no_reset`), so audio can be fed in pieces of any number of
/// whole windows and the result is that of one long call.
///
/// Confinement: one thread at a time (the context holds the LSTM state and a compute graph).
public final class SileroVADModel {
    /// The sample rate the model works at.
    public static let sampleRate = 16000
    /// Samples per probability.
    public let windowSize: Int
    private let context: OpaquePointer

    /// Loads the ggml file at `path` (see `SileroVADModelHeader` for the checks made before); nil when
    /// whisper.cpp cannot load it.
    public init?(path: String, threads: Int = 1) {
        guard case .success(let header) = SileroVADModelHeader.read(path) else { return nil }
        WhisperLog.install()
        var params = whisper_vad_default_context_params()
        params.n_threads = Int32(threads)
        params.use_gpu = false
        guard let context = whisper_vad_init_from_file_with_params(path, params) else { return nil }
        self.context = context
        windowSize = header.windowSize
        // A new context's LSTM state is whatever its buffer held (whisper.cpp 1.8.5 allocates it without zeroing;
        // only `whisper_vad_detect_speech` resets it): start from zeros, as a fresh stream.
        whisper_vad_reset_state(context)
    }

    deinit {
        whisper_vad_free(context)
    }

    /// The speech probability of each whole window in `samples` (`samples.count` must be a multiple of
    /// `windowSize`), appended to `probabilities`; false when whisper.cpp failed.
    public func detect(_ samples: UnsafeBufferPointer<Float>, into probabilities: inout [Float]) -> Bool {
        precondition(samples.count % windowSize == 0, "whole windows only")
        guard let base = samples.baseAddress, !samples.isEmpty else { return true }
        guard whisper_vad_detect_speech_no_reset(context, base, Int32(samples.count)) else { return false }
        let count = Int(whisper_vad_n_probs(context))
        guard let probs = whisper_vad_probs(context) else { return false }
        probabilities.append(contentsOf: UnsafeBufferPointer(start: probs, count: count))
        return true
    }

    /// Forgets the LSTM state (the next call starts as on a new stream).
    public func reset() {
        whisper_vad_reset_state(context)
    }
}

/// The checks made on a Silero VAD ggml file before it is loaded: whisper.cpp's loader does not report a wrong
/// file clearly, and trusts the header's sizes (a damaged layer count reads past its arrays and crashes the
/// process), so every field must be the Silero model's own.
public struct SileroVADModelHeader: Sendable, Equatable {
    /// The model type in the file (`silero-16k`).
    public let modelType: String
    /// The Silero version the file says it holds.
    public let version: String
    /// Samples per window.
    public let windowSize: Int

    public enum Problem: Error, Equatable {
        case missing, notAFile, unreadable
        /// Not a Silero VAD ggml file (why).
        case notSilero(String)
    }

    /// whisper.cpp's names of the int32 fields after the version, and the Silero 16 kHz model's values (the
    /// layout `SileroVADConverter` writes and whisper.cpp's `convert-silero-vad-to-ggml.py` too).
    static let fields: [(name: String, value: Int)] = {
        var fields = [("n_window", 512), ("n_context", 64), ("n_encoder_layers", SileroVADConverter.encoderChannels.count)]
        for (index, (input, output)) in SileroVADConverter.encoderChannels.enumerated() {
            fields += [("encoder_in_channels[\(index)]", input), ("encoder_out_channels[\(index)]", output),
                       ("kernel_sizes[\(index)]", 3)]
        }
        return fields + [("lstm_input_size", 128), ("lstm_hidden_size", 128), ("final_conv_in", 128), ("final_conv_out", 1)]
    }()

    /// Reads and checks the header of `path`.
    public static func read(_ path: String) -> Result<SileroVADModelHeader, Problem> {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else { return .failure(.missing) }
        guard !isFolder.boolValue else { return .failure(.notAFile) }
        guard let handle = FileHandle(forReadingAtPath: path) else { return .failure(.unreadable) }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 256), head.count >= 8 else { return .failure(.notSilero("too short")) }
        let bytes = [UInt8](head)
        func int32(_ offset: Int) -> Int? {
            guard offset + 4 <= bytes.count else { return nil }
            return Int(Int32(bitPattern: UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8
                | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24))
        }
        guard int32(0).map({ UInt32(truncatingIfNeeded: $0) }) == 0x6767_6d6c else { return .failure(.notSilero("no ggml magic")) }
        guard let length = int32(4), (1...32).contains(length), 8 + length <= bytes.count else {
            return .failure(.notSilero("no model type"))
        }
        let type = String(decoding: bytes[8..<(8 + length)], as: UTF8.self)
        guard type.hasPrefix("silero") else { return .failure(.notSilero("model type \"\(type)\", not silero")) }
        let values = (0..<(3 + fields.count)).compactMap { int32(8 + length + 4 * $0) }
        guard values.count == 3 + fields.count else { return .failure(.notSilero("header cut short")) }
        for (field, value) in zip(fields, values.dropFirst(3)) where value != field.value {
            return .failure(.notSilero("its header's \(field.name) is \(value); a Silero VAD model has \(field.value)"))
        }
        return .success(SileroVADModelHeader(modelType: type, version: "\(values[0]).\(values[1]).\(values[2])",
                                             windowSize: values[3]))
    }
}
