import Foundation

/// Finds where speech resumes and where a long silence begins, for a recognizer with no VAD upstream.
///
/// A pure value type: feed 10 ms frames' RMS (dBFS) one at a time and act on what it returns. A frame counts as
/// sound when it is `thresholdDb` above a noise floor that follows quiet frames quickly and loud ones slowly.
public struct SilenceEndpointer: Sendable {
    public enum Action: Sendable, Equatable {
        /// Nothing changed.
        case none
        /// Sound started at this frame (after a long silence, or at the very first sound).
        case soundStarted(frame: Int)
        /// The last `silenceFrames` frames were silent: the utterance can end (at the frame after the last sound).
        case longSilence(lastSoundEnd: Int)
    }

    public let silenceFrames: Int
    public let thresholdDb: Double
    private(set) var floorDb: Double = -70
    private var frame = 0
    private var silentRun = 0
    private var inSound = false
    private var lastSoundEnd = 0

    /// - Parameters:
    ///   - silenceFrames: 10 ms frames of silence that end an utterance.
    ///   - thresholdDb: how far above the noise floor a frame must be to count as sound.
    public init(silenceFrames: Int, thresholdDb: Double = 12) {
        self.silenceFrames = silenceFrames
        self.thresholdDb = thresholdDb
    }

    public mutating func add(frameRmsDb level: Double) -> Action {
        defer { frame += 1 }
        // Track the floor: fast down, slow up.
        floorDb = level < floorDb ? level * 0.5 + floorDb * 0.5 : floorDb + min(level - floorDb, 0.05)
        let isSound = level > max(floorDb + thresholdDb, -60)
        if isSound {
            silentRun = 0
            lastSoundEnd = frame + 1
            if !inSound {
                inSound = true
                return .soundStarted(frame: frame)
            }
            return .none
        }
        silentRun += 1
        if inSound && silentRun == silenceFrames {
            inSound = false
            return .longSilence(lastSoundEnd: lastSoundEnd)
        }
        return .none
    }
}
