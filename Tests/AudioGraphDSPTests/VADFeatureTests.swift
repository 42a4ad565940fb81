import AudioGraphTestKit
import Foundation
import Synchronization
import Testing
@testable import AudioGraphDSP

// The VAD's signal processing alone: the FFT front end, the features over the noise floor, and the classifier.

/// Runs `samples` (mono) through analyzer + extractor frame by frame (hop 10 ms, the detector's window size);
/// returns the features of each frame.
private func features(_ samples: [Float], sampleRate: Int) -> [VADFeatures] {
    let hop = sampleRate / 100
    var size = 16
    while size * 50 < sampleRate { size *= 2 }
    let analyzer = SpectralAnalyzer(size: size)
    var extractor = VADFeatureExtractor(sampleRate: sampleRate, fftSize: size)
    var power = [Float](repeating: 0, count: analyzer.binCount)
    var result: [VADFeatures] = []
    var start = 0
    while start + size <= samples.count {
        samples[start..<(start + size)].withUnsafeBufferPointer { frame in
            power.withUnsafeMutableBufferPointer { analyzer.powerSpectrum(of: frame, into: $0) }
        }
        result.append(power.withUnsafeBufferPointer { extractor.analyze($0) })
        start += hop
    }
    return result
}

private func mean(_ values: some Collection<Float>) -> Float {
    values.reduce(0, +) / Float(values.count)
}

@Suite(.ownThreads) struct VADFeatureTests {
    // MARK: SpectralAnalyzer

    @Test func sineLandsInItsBin() {
        let analyzer = SpectralAnalyzer(size: 512)
        // Bin 32 at 16 kHz / 512 = 1000 Hz.
        let sine = Signals.sine(frequency: 1_000, seconds: 512.0 / 16_000, sampleRate: 16_000)
        var power = [Float](repeating: 0, count: analyzer.binCount)
        sine.withUnsafeBufferPointer { frame in
            power.withUnsafeMutableBufferPointer { analyzer.powerSpectrum(of: frame, into: $0) }
        }
        let peak = power.indices.max { power[$0] < power[$1] }
        #expect(peak == 32)
        // Hann: the neighbours hold a quarter of the peak's amplitude (1/16 of its power); bins further away
        // hold almost nothing.
        #expect(abs(power[31] / power[32] - 0.25) < 0.01)
        #expect(power[40] < power[32] * 1e-6)
    }

    @Test func whiteNoiseReadsItsVarianceInEveryBin() {
        let analyzer = SpectralAnalyzer(size: 512)
        let noise = VADSignals.whiteNoise(seconds: 4, sampleRate: 16_000, rms: 0.1)
        var sum = [Double](repeating: 0, count: analyzer.binCount)
        var power = [Float](repeating: 0, count: analyzer.binCount)
        var frames = 0
        var start = 0
        while start + 512 <= noise.count {
            noise[start..<(start + 512)].withUnsafeBufferPointer { frame in
                power.withUnsafeMutableBufferPointer { analyzer.powerSpectrum(of: frame, into: $0) }
            }
            for k in 0..<power.count { sum[k] += Double(power[k]) }
            frames += 1
            start += 256
        }
        // Mean over frames and the bins 10...246: variance 0.01 (within 5%: 248 frames × 237 bins).
        let average = sum[10...246].reduce(0, +) / Double(237 * frames)
        #expect(abs(average / 0.01 - 1) < 0.05)
    }

    @Test func silenceGivesZeroPower() {
        let analyzer = SpectralAnalyzer(size: 256)
        let zeros = [Float](repeating: 0, count: 256)
        var power = [Float](repeating: 1, count: analyzer.binCount)
        zeros.withUnsafeBufferPointer { frame in
            power.withUnsafeMutableBufferPointer { analyzer.powerSpectrum(of: frame, into: $0) }
        }
        #expect(power.allSatisfy { $0 == 0 })
    }

    /// Analyzers made and freed on several threads at once (the planner lock) give the same spectra.
    @Test func analyzersOnSeveralThreadsAgree() {
        let frame = VADSignals.whiteNoise(seconds: 0.1, sampleRate: 16_000, rms: 0.2).prefix(1024).map { $0 }
        let results = Mutex<[[Float]]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            for _ in 0..<20 {
                let analyzer = SpectralAnalyzer(size: 1024)
                var power = [Float](repeating: 0, count: 513)
                frame.withUnsafeBufferPointer { input in
                    power.withUnsafeMutableBufferPointer { analyzer.powerSpectrum(of: input, into: $0) }
                }
                let copy = power
                results.withLock { $0.append(copy) }
            }
        }
        let all = results.withLock { $0 }
        #expect(all.count == 160)
        #expect(all.allSatisfy { $0 == all[0] })
        #expect(all[0].contains { $0 > 0 })
    }

    // MARK: features

    /// White noise at any level: level ≈ its variance in dB, the floor follows it, the whitened spectrum is
    /// flat (log flatness ≈ −0.58, the flatness of exponentially distributed bin powers).
    @Test(arguments: [0.001, 0.01, 0.1, 0.5] as [Float])
    func whiteNoiseIsFlatOverTheFloor(rms: Float) {
        let f = features(VADSignals.whiteNoise(seconds: 4, sampleRate: 16_000, rms: rms), sampleRate: 16_000)
        let settled = f[100...]
        let expectedDb = 20 * log10(rms)
        #expect(abs(mean(settled.map(\.levelDb)) - expectedDb) < 0.5)
        #expect(abs(mean(settled.map(\.noiseDb)) - expectedDb) < 1.5)
        #expect(abs(mean(settled.map(\.logFlatness)) + 0.58) < 0.06)
    }

    /// Pink noise too: the floor is tracked per band, so coloured noise whitens to flat.
    @Test func pinkNoiseIsFlatOverTheFloor() {
        let f = features(VADSignals.pinkNoise(seconds: 4, sampleRate: 16_000, rms: 0.05), sampleRate: 16_000)
        #expect(abs(mean(f[100...].map(\.logFlatness)) + 0.58) < 0.08)
    }

    /// A harmonic tone over noise is far from flat; noise alone is not.
    @Test func harmonicToneIsFarFromFlat() {
        let rate = 16_000
        let noise = VADSignals.whiteNoise(seconds: 4, sampleRate: rate, rms: 0.01)
        var tone = [Float](repeating: 0, count: noise.count)
        for i in tone.indices {
            let t = Double(i) / Double(rate)
            // Harmonics of 200 Hz from 2 s on.
            if t >= 2 { for k in 1...15 { tone[i] += Float(0.05 * sin(2 * Double.pi * 200 * Double(k) * t)) } }
        }
        let f = features(VADSignals.mix(noise, tone), sampleRate: rate)
        let before = mean(f[100..<190].map(\.logFlatness))
        let during = mean(f[220..<380].map(\.logFlatness))
        #expect(before > -0.7)
        #expect(during < -1.5)
        // The floor does not rise into the tone within the 2 s minimum window.
        #expect(mean(f[220..<380].map(\.snrDb)) > 15)
    }

    /// The level is the speech band's: a 1 kHz tone counts, a 100 Hz hum or a 6 kHz whistle barely does.
    @Test func levelCountsOnlyTheSpeechBand() {
        func level(_ frequency: Double) -> Float {
            let f = features(Signals.sine(frequency: frequency, seconds: 0.5, sampleRate: 16_000, amplitude: 0.5),
                             sampleRate: 16_000)
            return mean(f[10...].map(\.levelDb))
        }
        let inBand = level(1_000), hum = level(100), whistle = level(6_000)
        // A 0.5 sine at a bin centre reads A²·N/6 = 21.3 in its bin (the Hann main lobe adds a quarter on each
        // side): mean over the ~118 bins of 300–4000 Hz, 0.27, or −5.7 dB.
        #expect(abs(inBand + 5.7) < 1)
        #expect(hum < inBand - 40)
        #expect(whistle < inBand - 40)
    }

    /// The floor follows noise down within a second (at the pace of the band-power smoothing) and up within the
    /// minimum window (~2 s).
    @Test func noiseFloorFollowsLevelSteps() {
        let rate = 16_000
        let loud = VADSignals.whiteNoise(seconds: 3, sampleRate: rate, rms: 0.1, seed: 1)
        let quiet = VADSignals.whiteNoise(seconds: 3, sampleRate: rate, rms: 0.01, seed: 2)
        let loudAgain = VADSignals.whiteNoise(seconds: 4, sampleRate: rate, rms: 0.1, seed: 3)
        let f = features(loud + quiet + loudAgain, sampleRate: rate)
        // Frames are 10 ms: the step down is at frame 300, the step up at 600.
        #expect(abs(mean(f[250..<300].map(\.noiseDb)) + 20) < 1.5)
        #expect(mean(f[320..<330].map(\.noiseDb)) < -25)              // well on its way after 0.2 s ...
        #expect(abs(mean(f[400..<450].map(\.noiseDb)) + 40) < 1.5)   // ... and there after 1 s
        #expect(mean(f[600..<700].map(\.noiseDb)) < -35)             // holds for a moment after the step up ...
        #expect(abs(mean(f[850..<900].map(\.noiseDb)) + 20) < 1.5)   // ... and has followed within 2.5 s
    }

    @Test func bandsCoverTheSpeechBandAtEveryRate() {
        for rate in VADNode.supportedSampleRates {
            var size = 16
            while size * 50 < rate { size *= 2 }
            let extractor = VADFeatureExtractor(sampleRate: rate, fftSize: size)
            // 300…4000 Hz in 250 Hz bands, cut at 45% of the rate (3600 Hz at 8 kHz).
            #expect(extractor.bandCount == (rate == 8_000 ? 14 : 15), "\(rate) Hz")
        }
    }

    // MARK: classifier

    @Test func classifierLagsBySmoothingAndFollowsFlatness() {
        var classifier = VADClassifier(thresholds: .aggressiveness(1))
        #expect(classifier.delay == 4)
        let noise = VADFeatures(levelDb: -40, noiseDb: -40, logFlatness: -0.58)
        let voiced = VADFeatures(levelDb: -20, noiseDb: -40, logFlatness: -1.5)
        var decisions: [Bool?] = []
        for _ in 0..<20 { decisions.append(classifier.classify(noise)) }
        for _ in 0..<20 { decisions.append(classifier.classify(voiced)) }
        for _ in 0..<20 { decisions.append(classifier.classify(noise)) }
        #expect(decisions[0..<4].allSatisfy { $0 == nil })
        // Decision i (for frame i - 4) is returned with frame i. Frames 0..<20 noise, 20..<40 voiced.
        let byFrame = decisions[4...].map { $0! }
        #expect(byFrame[0..<16].allSatisfy { !$0 })
        #expect(byFrame[22..<38].allSatisfy { $0 })
        #expect(byFrame[44...].allSatisfy { !$0 })
    }

    @Test func classifierGatesTonalSoundsFarBelowTheSpeaker() {
        var classifier = VADClassifier(thresholds: .aggressiveness(1))
        let speaker = VADFeatures(levelDb: -20, noiseDb: -45, logFlatness: -1.5)
        let distant = VADFeatures(levelDb: -40, noiseDb: -45, logFlatness: -1.5)  // tonal, 20 dB below
        let quietButClear = VADFeatures(levelDb: -40, noiseDb: -60, logFlatness: -1.5)  // 20 dB over its floor
        for _ in 0..<50 { _ = classifier.classify(speaker) }
        var afterDistant: [Bool] = []
        for _ in 0..<50 { afterDistant.append(classifier.classify(distant) ?? false) }
        #expect(afterDistant.suffix(40).allSatisfy { !$0 })
        var afterClear: [Bool] = []
        for _ in 0..<50 { afterClear.append(classifier.classify(quietButClear) ?? false) }
        #expect(afterClear.suffix(40).allSatisfy { $0 })
    }

    @Test func aggressivenessRaisesTheThresholds() {
        let levels = (0...3).map { VADClassifier.Thresholds.aggressiveness($0) }
        for (a, b) in zip(levels, levels.dropFirst()) {
            #expect(a.flatnessOn < b.flatnessOn)
            #expect(a.flatnessOff < b.flatnessOff)
            #expect(a.gateDb >= b.gateDb)
        }
        #expect(VADClassifier.Thresholds.aggressiveness(-1) == levels[0])
        #expect(VADClassifier.Thresholds.aggressiveness(9) == levels[3])
        // Noise alone (flatness 0.58) stays below every level's thresholds.
        #expect(levels.allSatisfy { $0.flatnessOff > 0.58 })
    }
}
