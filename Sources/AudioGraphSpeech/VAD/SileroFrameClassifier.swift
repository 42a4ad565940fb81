import AudioGraphDSP
import AudioGraphWhisper

/// The `silero` engine's frame classifier: Silero VAD's speech probability per 32 ms window (512 samples at
/// 16 kHz, `SileroVADModel`), with hysteresis as silero-vad's own `get_speech_timestamps`: a window is speech at
/// `threshold` or above, and stays speech while the probability is at least `threshold - 0.15`.
///
/// Samples are held until a whole window is there; every whole window in hand is sent in one call, so memory
/// stays at one window however long the stream, and the model's LSTM state runs on across calls (the decisions
/// do not depend on how the samples are split).
///
/// Confinement: one thread at a time (the model's rule).
public final class SileroFrameClassifier: VADFrameClassifier {
    /// How far below `threshold` a speaking stream may go before a window is non-speech (silero-vad's 0.15).
    public static let hysteresis: Float = 0.15

    public let model: SileroVADModel
    public let threshold: Float
    public var frameLength: Int { model.windowSize }
    private var pending: [Float]
    private var probabilities: [Float] = []
    private var speaking = false

    public init(model: SileroVADModel, threshold: Float) {
        self.model = model
        self.threshold = threshold
        pending = []
        pending.reserveCapacity(model.windowSize * 8)
        probabilities.reserveCapacity(16)
    }

    public func process(_ samples: UnsafeBufferPointer<Float>, _ decide: (VADFrameDecision) throws -> Void) throws {
        let window = model.windowSize
        var offset = 0
        while offset < samples.count {
            // Fill the pending buffer up to whole windows, at most 8 at a time (bounded memory, any input size).
            let room = window * 8 - pending.count
            let take = min(room, samples.count - offset)
            pending.append(contentsOf: UnsafeBufferPointer(rebasing: samples[offset..<(offset + take)]))
            offset += take
            let whole = pending.count / window * window
            guard whole > 0 else { continue }
            probabilities.removeAll(keepingCapacity: true)
            let ok = pending.withUnsafeBufferPointer { model.detect(UnsafeBufferPointer(rebasing: $0[0..<whole]), into: &probabilities) }
            guard ok else { throw SileroVADFailure() }
            for (index, probability) in probabilities.enumerated() {
                speaking = probability >= (speaking ? threshold - Self.hysteresis : threshold)
                let level = pending.withUnsafeBufferPointer {
                    vadLevelDb(UnsafeBufferPointer(rebasing: $0[(index * window)..<((index + 1) * window)]))
                }
                try decide(VADFrameDecision(isSpeech: speaking, levelDb: level))
            }
            pending.removeFirst(whole)
        }
    }
}

/// whisper.cpp could not run the VAD graph.
struct SileroVADFailure: Error, CustomStringConvertible {
    var description: String { "whisper.cpp failed to run the Silero VAD model" }
}
