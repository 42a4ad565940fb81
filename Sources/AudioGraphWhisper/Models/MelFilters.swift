import Foundation

/// Slaney-style mel filter banks, as librosa's `filters.mel` computes them by default (`htk=False`,
/// `norm="slaney"`), which is how Whisper's own `mel_filters.npz` was made. CTranslate2 models do not ship the
/// filters; whisper.cpp's ggml files must.
public enum MelFilters {
    /// The filter bank, `mels` rows of `fftSize / 2 + 1` weights each, row-major.
    public static func slaney(sampleRate: Double = 16_000, fftSize: Int = 400, mels: Int = 80) -> [Float] {
        let bins = fftSize / 2 + 1
        let fftFrequencies = (0..<bins).map { Double($0) * sampleRate / Double(fftSize) }
        let lowest = hertzToMel(0), highest = hertzToMel(sampleRate / 2)
        let melFrequencies = (0..<(mels + 2)).map { index in
            melToHertz(lowest + (highest - lowest) * Double(index) / Double(mels + 1))
        }
        var weights = [Float](repeating: 0, count: mels * bins)
        for row in 0..<mels {
            let lowerWidth = melFrequencies[row + 1] - melFrequencies[row]
            let upperWidth = melFrequencies[row + 2] - melFrequencies[row + 1]
            let normalization = 2.0 / (melFrequencies[row + 2] - melFrequencies[row])
            for bin in 0..<bins {
                let rising = (fftFrequencies[bin] - melFrequencies[row]) / lowerWidth
                let falling = (melFrequencies[row + 2] - fftFrequencies[bin]) / upperWidth
                weights[row * bins + bin] = Float(max(0, min(rising, falling)) * normalization)
            }
        }
        return weights
    }

    private static let linearStep = 200.0 / 3
    private static let logStart = 1000.0
    private static let logStep = log(6.4) / 27

    /// Hertz to Slaney mels: linear below 1 kHz, logarithmic above.
    public static func hertzToMel(_ hertz: Double) -> Double {
        hertz < logStart ? hertz / linearStep : logStart / linearStep + log(hertz / logStart) / logStep
    }

    /// Slaney mels to hertz.
    public static func melToHertz(_ mel: Double) -> Double {
        let logStartMel = logStart / linearStep
        return mel < logStartMel ? mel * linearStep : logStart * exp(logStep * (mel - logStartMel))
    }
}
