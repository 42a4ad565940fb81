import AudioGraphCore
import Foundation

/// Test signals and helpers to cut them into buffers.
public enum Signals {
    /// A sine in every channel (interleaved), `amplitude` 0…1 peak.
    public static func sine(frequency: Double, seconds: Double, sampleRate: Int, channels: Int = 1,
                            amplitude: Float = 0.5, phase: Double = 0) -> [Float] {
        let frames = Int((seconds * Double(sampleRate)).rounded())
        var samples = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let value = amplitude * Float(sin(2 * Double.pi * frequency * Double(i) / Double(sampleRate) + phase))
            for c in 0..<channels { samples[i * channels + c] = value }
        }
        return samples
    }

    /// A constant value (DC) in every channel.
    public static func constant(_ value: Float, seconds: Double, sampleRate: Int, channels: Int = 1) -> [Float] {
        [Float](repeating: value, count: Int((seconds * Double(sampleRate)).rounded()) * channels)
    }

    /// Deterministic white noise (a fixed-seed generator), uniform in -amplitude…amplitude.
    public static func noise(seconds: Double, sampleRate: Int, channels: Int = 1, amplitude: Float = 0.5,
                             seed: UInt64 = 1) -> [Float] {
        var state = seed == 0 ? 0x9E37_79B9_7F4A_7C15 : seed
        let count = Int((seconds * Double(sampleRate)).rounded()) * channels
        return (0..<count).map { _ in
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return amplitude * (Float(state >> 40) / Float(1 << 24) * 2 - 1)
        }
    }

    /// Cuts interleaved samples into buffers of `framesPerBuffer` frames with consecutive positions.
    public static func buffers(_ samples: [Float], format: AudioFormat, framesPerBuffer: Int,
                               startingAt start: Int64 = 0) -> [AudioBuffer] {
        precondition(framesPerBuffer > 0)
        let step = framesPerBuffer * format.channels
        var result: [AudioBuffer] = []
        var offset = 0
        var position = start
        while offset < samples.count {
            let end = min(offset + step, samples.count)
            result.append(AudioBuffer(format: format, samples: Array(samples[offset..<end]), position: position))
            position += Int64((end - offset) / format.channels)
            offset = end
        }
        return result
    }

    /// Mean power of one frequency in `samples` (Goertzel), for checking a resampled sine kept its pitch.
    public static func power(of frequency: Double, in samples: [Float], sampleRate: Int) -> Double {
        let omega = 2 * Double.pi * frequency / Double(sampleRate)
        let coefficient = 2 * cos(omega)
        var s1 = 0.0, s2 = 0.0
        for sample in samples {
            let s0 = Double(sample) + coefficient * s1 - s2
            s2 = s1
            s1 = s0
        }
        return (s1 * s1 + s2 * s2 - coefficient * s1 * s2) / Double(max(samples.count, 1))
    }

    /// Root mean square of samples.
    public static func rms(_ samples: [Float]) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }
}
