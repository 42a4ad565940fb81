import Foundation

/// One frame's decision from a `VADFrameClassifier`.
public struct VADFrameDecision: Sendable, Equatable {
    /// Whether the frame holds speech.
    public var isSpeech: Bool
    /// The frame's level (dB, any fixed reference): where the quietest point of a long utterance is looked for.
    public var levelDb: Float

    public init(isSpeech: Bool, levelDb: Float) {
        self.isSpeech = isSpeech
        self.levelDb = levelDb
    }
}

/// The part of a voice-activity detector that changes with its engine: mono samples in, one decision per frame of
/// `frameLength` samples out, in order and without gaps (frame `k` covers samples `[k·frameLength,
/// (k+1)·frameLength)` from the first sample fed). `VoiceActivityDetector` turns the decisions into events with
/// `VADStateMachine`, the same for every engine.
///
/// Confinement: one thread at a time.
public protocol VADFrameClassifier: AnyObject {
    /// Samples per decision.
    var frameLength: Int { get }
    /// Feeds samples; calls `decide` for each frame decided inside them (decisions may lag the samples).
    func process(_ samples: UnsafeBufferPointer<Float>, _ decide: (VADFrameDecision) throws -> Void) throws
}

/// Whole-frame level of `samples` in dB (mean square, floored at -120 dB).
public func vadLevelDb(_ samples: UnsafeBufferPointer<Float>) -> Float {
    guard !samples.isEmpty else { return -120 }
    var sum: Float = 0
    for sample in samples { sum += sample * sample }
    let meanSquare = sum / Float(samples.count)
    return meanSquare > 1e-12 ? 10 * log10(meanSquare) : -120
}
