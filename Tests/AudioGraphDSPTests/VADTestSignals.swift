import AudioGraphCore
import AudioGraphTestKit
import Foundation
@testable import AudioGraphDSP

// Signals and helpers shared by the VAD tests.

enum VADSignals {
    /// A speech-like sound: a harmonic series on a gliding 140 Hz fundamental (harmonics up to 3.5 kHz with
    /// falling amplitudes, like a vowel), amplitude-modulated at a syllable rate of 4 Hz with the envelope
    /// sin²(π·4·t), so it falls to silence between "syllables" every 250 ms. Peak about `amplitude`.
    static func speechLike(seconds: Double, sampleRate: Int, amplitude: Float = 0.3) -> [Float] {
        let count = Int((seconds * Double(sampleRate)).rounded())
        var samples = [Float](repeating: 0, count: count)
        var phase = 0.0
        let rate = Double(sampleRate)
        let harmonics = Int(3_500 / 140)
        var norm = 0.0
        for k in 1...harmonics { norm += 1 / Double(k) }
        for i in 0..<count {
            let t = Double(i) / rate
            let f0 = 140 * (1 + 0.06 * sin(2 * Double.pi * 1.3 * t))
            phase += 2 * Double.pi * f0 / rate
            var value = 0.0
            for k in 1...harmonics { value += sin(Double(k) * phase) / Double(k) }
            let envelope = pow(sin(Double.pi * 4 * t), 2)
            samples[i] = Float(value / norm * envelope) * amplitude
        }
        return samples
    }

    /// Deterministic Gaussian-like white noise (sum of four uniform values), RMS `rms`.
    static func whiteNoise(seconds: Double, sampleRate: Int, rms: Float, seed: UInt64 = 7) -> [Float] {
        let count = Int((seconds * Double(sampleRate)).rounded())
        var state = seed
        func uniform() -> Float {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Float(state >> 40) / Float(1 << 24) * 2 - 1
        }
        // The sum of four uniforms in -1…1 has variance 4/3.
        let scale = rms / (4.0 / 3.0).squareRoot()
        return (0..<count).map { _ in (uniform() + uniform() + uniform() + uniform()) * scale }
    }

    /// Pink (1/f) noise from white noise through Paul Kellet's economy filter, RMS `rms`.
    static func pinkNoise(seconds: Double, sampleRate: Int, rms: Float, seed: UInt64 = 11) -> [Float] {
        let white = whiteNoise(seconds: seconds, sampleRate: sampleRate, rms: 1, seed: seed)
        var b0: Float = 0, b1: Float = 0, b2: Float = 0
        var pink = white.map { w -> Float in
            b0 = 0.99765 * b0 + w * 0.0990460
            b1 = 0.96300 * b1 + w * 0.2965164
            b2 = 0.57000 * b2 + w * 1.0526913
            return b0 + b1 + b2 + w * 0.1848
        }
        let current = Float(Signals.rms(pink))
        for i in pink.indices { pink[i] *= rms / current }
        return pink
    }

    static func silence(seconds: Double, sampleRate: Int) -> [Float] {
        [Float](repeating: 0, count: Int((seconds * Double(sampleRate)).rounded()))
    }

    /// Adds `b` into `a` (same length).
    static func mix(_ a: [Float], _ b: [Float]) -> [Float] {
        precondition(a.count == b.count)
        return zip(a, b).map { $0 + $1 }
    }
}

/// A speech event as (type name, time).
struct SpeechEvent: Equatable, CustomStringConvertible {
    var started: Bool
    var time: Double
    var description: String { "\(started ? "start" : "end")@\(String(format: "%.3f", time))" }
}

extension NodeHarness where Node == VADNode {
    /// The speech events the node emitted, in order.
    var speechEvents: [SpeechEvent] {
        events.compactMap { event in
            switch event.payload {
            case .speechStarted: return SpeechEvent(started: true, time: event.time)
            case .speechEnded: return SpeechEvent(started: false, time: event.time)
            default: return nil
            }
        }
    }
}

enum VADRun {
    /// Runs `samples` through a `vad` node; returns the harness after `finish`.
    static func node(_ samples: [Float], format: AudioFormat, parameters: JSONObject = JSONObject(),
                     framesPerBuffer: Int = 1024, startingAt start: Int64 = 0) throws -> NodeHarness<VADNode> {
        let harness = try NodeHarness(type: VADNode.self, id: "vad", parameters: parameters, input: format)
        try harness.push(samples, framesPerBuffer: framesPerBuffer, startingAt: start)
        try harness.finish()
        return harness
    }

    /// Speech segments (start, end) from alternating events.
    static func segments(_ events: [SpeechEvent]) -> [(start: Double, end: Double)] {
        var result: [(Double, Double)] = []
        var open: Double?
        for event in events {
            if event.started { open = event.time } else if let start = open {
                result.append((start, event.time))
                open = nil
            }
        }
        return result
    }
}
