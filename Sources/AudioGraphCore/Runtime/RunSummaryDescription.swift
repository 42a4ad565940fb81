import Foundation

extension RunSummary: CustomStringConvertible {
    /// One line: `done: 24.0 s of audio from src in 1.52 s (15.8x real time)`, with interruptions and drops.
    public var description: String {
        let audio = sources.map(\.seconds).max() ?? 0
        let factor = wallSeconds > 0 ? audio / wallSeconds : 0
        var text = String(format: "%@ %.1f s of audio", interrupted ? "interrupted after" : "done:", audio)
        if !sources.isEmpty { text += " from " + sources.map(\.node).joined(separator: ", ") }
        text += String(format: " in %.2f s (%@ real time)", wallSeconds, RealTimeFactor.format(factor))
        let dropped = droppedFrames.filter { $0.value > 0 }.sorted { $0.key < $1.key }
        if !dropped.isEmpty {
            text += "; dropped " + dropped.map { "\($0.value) frames at \($0.key)" }.joined(separator: ", ")
        }
        return text
    }
}

extension SourceProgress: CustomStringConvertible {
    /// `src: 12.0 s of 24.0 s (50%)`, or `mic: 3.2 s` when the total is unknown.
    public var description: String {
        guard let fraction, let totalFrames, let sampleRate, sampleRate > 0 else {
            return String(format: "%@: %.1f s", node, seconds)
        }
        return String(format: "%@: %.1f s of %.1f s (%d%%)", node, seconds, Double(totalFrames) / Double(sampleRate),
                      Int(fraction * 100))
    }
}

/// A real-time factor as summaries print it: whole from 10x, one decimal from 0.1x ("0.3x", not "0x"), two
/// below ("0.04x").
public enum RealTimeFactor {
    public static func format(_ factor: Double) -> String {
        String(format: factor >= 10 ? "%.0fx" : factor >= 0.1 ? "%.1fx" : "%.2fx", factor)
    }
}
