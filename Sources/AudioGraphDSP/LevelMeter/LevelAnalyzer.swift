import AudioGraphCore
import Foundation

/// Per-channel RMS and peak over consecutive windows of `windowFrames` frames. A plain value type, apart from
/// any node: feed it samples in any block sizes and it reports the same windows.
public struct LevelAnalyzer {
    public let channels: Int
    public let windowFrames: Int
    /// Readings below this clamp to it, so silence is a finite number.
    public static let minimumDb = -120.0

    private var sumSquares: [Double]
    private var peaks: [Float]
    private var framesInWindow = 0

    public init(channels: Int, windowFrames: Int) {
        precondition(channels > 0 && windowFrames > 0)
        self.channels = channels
        self.windowFrames = windowFrames
        sumSquares = [Double](repeating: 0, count: channels)
        peaks = [Float](repeating: 0, count: channels)
    }

    /// Adds interleaved samples; calls `report` with each window completed inside them and the index (within
    /// `samples`, in frames) just after the window's last frame.
    public mutating func add(_ samples: UnsafeBufferPointer<Float>, report: (LevelReading, Int) throws -> Void) rethrows {
        let frames = samples.count / channels
        var frame = 0
        while frame < frames {
            let take = min(windowFrames - framesInWindow, frames - frame)
            for c in 0..<channels {
                // Accumulate onto the running sum (not a per-call subtotal) so the rounding, and so the reading,
                // does not depend on how the samples were split into buffers.
                var sum = sumSquares[c]
                var peak = peaks[c]
                var index = frame * channels + c
                for _ in 0..<take {
                    let value = samples[index]
                    sum += Double(value) * Double(value)
                    peak = max(peak, abs(value))
                    index += channels
                }
                sumSquares[c] = sum
                peaks[c] = peak
            }
            frame += take
            framesInWindow += take
            if framesInWindow == windowFrames {
                try report(takeReading(), frame)
            }
        }
    }

    /// The reading for a partly filled window (at end of stream), or nil if it is empty.
    public mutating func flush() -> LevelReading? {
        framesInWindow > 0 ? takeReading() : nil
    }

    private mutating func takeReading() -> LevelReading {
        let count = Double(framesInWindow)
        let rms = sumSquares.map { Self.decibels(($0 / count).squareRoot()) }
        let peak = peaks.map { Self.decibels(Double($0)) }
        for c in 0..<channels {
            sumSquares[c] = 0
            peaks[c] = 0
        }
        framesInWindow = 0
        return LevelReading(level: LevelReading.normalizedLevel(rmsDb: rms.max() ?? Self.minimumDb), rmsDb: rms,
                            peakDb: peak)
    }

    /// 20·log10(amplitude), at least `minimumDb`.
    public static func decibels(_ amplitude: Double) -> Double {
        amplitude > 0 ? max(20 * log10(amplitude), minimumDb) : minimumDb
    }
}
