import Foundation

/// What the feature extractor measures in one analysis frame.
public struct VADFeatures: Sendable, Equatable {
    /// Mean power in the speech band (300–4000 Hz), dB (0 dB = white noise of variance 1, so full scale).
    public var levelDb: Float
    /// The noise floor's mean power in the same band, dB.
    public var noiseDb: Float
    /// Log spectral flatness of the spectrum divided by the noise floor, over the speech band:
    /// `mean(log W) − log(mean W)`, `W[k] = power[k] / noise[k]`. Never above 0. Noise alone reads about
    /// −0.58 (−γ, the flatness of an exponential distribution) whatever its level and colour; the harmonics of
    /// voiced speech read much lower.
    public var logFlatness: Float

    /// Speech-band signal-to-noise-floor ratio, dB.
    public var snrDb: Float { levelDb - noiseDb }
}

/// Spectral features of speech over an adaptive noise floor, from one power spectrum per 10 ms hop.
///
/// The floor is tracked per band (15 bands, 300–500 Hz then 250 Hz wide up to 4000 Hz, or up to 45% of the
/// sample rate when that is lower) by minimum statistics (Martin 2001): the minimum of the smoothed band power over the last ~2 s, which
/// speech does not raise because speech pauses within 2 s. A mean floor follows the band power in frames near
/// that minimum (so the floor is the noise's mean, not its minimum) and holds during speech. The floor follows
/// falling noise at once (never more than 6 dB above the smoothed power; a 20 dB drop within ~1 s) and rising
/// noise within the 2 s window.
public struct VADFeatureExtractor {
    /// Band edges and tracking constants.
    public struct Settings: Sendable, Equatable {
        /// Lowest and highest frequency of the speech band, Hz.
        public var lowHz = 300.0
        public var highHz = 4000.0
        /// Width of each noise-tracking band, Hz.
        public var bandHz = 250.0
        /// Smoothing of band power before the minimum search (per frame).
        public var smoothing: Float = 0.85
        /// The minimum is searched over `subwindows` × `subwindowFrames` frames.
        public var subwindows = 8
        public var subwindowFrames = 25
        /// A band's mean floor is updated in frames whose power is below `nearMinimum` × its minimum.
        public var nearMinimum: Float = 5
        /// Smoothing of the mean floor (per frame).
        public var floorSmoothing: Float = 0.95
        /// The floor never stays more than this above the smoothed band power (6 dB): it drops at once with the
        /// noise instead of decaying.
        public var dropRatio: Float = 4
        /// Frames at the start that set the floor from their mean (the stream is assumed to start without speech).
        public var startupFrames = 10
        /// Power added to every bin so digital silence has a finite, flat spectrum: −100 dB.
        public var powerFloor: Float = 1e-10

        public init() {}
    }

    public let settings: Settings
    /// Power-spectrum bins per band, `bands[b] = lo..<hi`.
    private let bands: [Range<Int>]
    /// Bins of the speech band for level and flatness.
    private let speechBins: Range<Int>
    /// Band of each speech bin (index into `bands`).
    private let bandOfBin: [Int]

    private var smoothed: [Float]
    private var currentMinimum: [Float]
    private var subwindowMinima: [Float]  // subwindows × bands
    private var minimum: [Float]
    private var floor: [Float]
    private var bandPower: [Float]
    private var frameIndex = 0
    private var subwindowFill = 0
    private var subwindowCursor = 0

    /// - Parameters:
    ///   - sampleRate: the audio's rate, Hz.
    ///   - fftSize: the spectra's FFT length (`binCount = fftSize / 2 + 1`).
    public init(sampleRate: Int, fftSize: Int, settings: Settings = Settings()) {
        self.settings = settings
        let binHz = Double(sampleRate) / Double(fftSize)
        let nyquistBin = fftSize / 2
        func bin(_ hz: Double) -> Int { min(max(Int((hz / binHz).rounded()), 1), nyquistBin) }
        // Below the Nyquist frequency by 10%: audio resampled to a low rate rolls off there, and a floor that
        // cannot follow the roll-off within a band would make noise look tonal.
        let high = min(settings.highHz, 0.45 * Double(sampleRate))
        var bands: [Range<Int>] = []
        var edge = settings.lowHz - settings.lowHz.truncatingRemainder(dividingBy: settings.bandHz)
        while edge < high {
            let lo = bin(max(edge, settings.lowHz)), hi = bin(min(edge + settings.bandHz, high))
            if hi > lo { bands.append(lo..<hi) }
            edge += settings.bandHz
        }
        if bands.isEmpty { bands = [1..<max(2, nyquistBin)] }
        self.bands = bands
        speechBins = bands.first!.lowerBound..<bands.last!.upperBound
        var bandOfBin = [Int](repeating: 0, count: speechBins.count)
        for (b, range) in bands.enumerated() {
            for k in range { bandOfBin[k - speechBins.lowerBound] = b }
        }
        self.bandOfBin = bandOfBin
        let count = bands.count
        smoothed = [Float](repeating: 0, count: count)
        currentMinimum = [Float](repeating: .greatestFiniteMagnitude, count: count)
        subwindowMinima = [Float](repeating: .greatestFiniteMagnitude, count: count * settings.subwindows)
        minimum = [Float](repeating: 0, count: count)
        floor = [Float](repeating: 0, count: count)
        bandPower = [Float](repeating: 0, count: count)
    }

    /// Number of noise-tracking bands.
    public var bandCount: Int { bands.count }

    /// Measures one frame and updates the noise floor.
    public mutating func analyze(_ power: UnsafeBufferPointer<Float>) -> VADFeatures {
        let s = settings
        let count = bands.count
        let eps = s.powerFloor
        // Band powers.
        for b in 0..<count {
            var sum: Float = 0
            for k in bands[b] { sum += power[k] }
            bandPower[b] = sum / Float(bands[b].count) + eps
        }
        // Noise floor: minimum statistics, then a mean floor updated near the minimum.
        let startup = frameIndex < s.startupFrames
        for b in 0..<count {
            let p = bandPower[b]
            smoothed[b] = frameIndex == 0 ? p : s.smoothing * smoothed[b] + (1 - s.smoothing) * p
            currentMinimum[b] = min(currentMinimum[b], smoothed[b])
            var m = currentMinimum[b]
            for u in 0..<s.subwindows { m = min(m, subwindowMinima[u * count + b]) }
            minimum[b] = m
            if startup {
                floor[b] = (floor[b] * Float(frameIndex) + p) / Float(frameIndex + 1)
            } else if p < s.nearMinimum * m {
                floor[b] = s.floorSmoothing * floor[b] + (1 - s.floorSmoothing) * p
            }
            // Quickly down (never more than `dropRatio` above the smoothed power), slowly up (never below the
            // minimum).
            floor[b] = max(min(floor[b], s.dropRatio * smoothed[b]), m)
        }
        subwindowFill += 1
        if subwindowFill == s.subwindowFrames {
            for b in 0..<count {
                subwindowMinima[subwindowCursor * count + b] = currentMinimum[b]
                currentMinimum[b] = .greatestFiniteMagnitude
            }
            subwindowCursor = (subwindowCursor + 1) % s.subwindows
            subwindowFill = 0
        }
        frameIndex += 1

        // Level, floor and whitened flatness over the speech band.
        var level: Float = 0, noise: Float = 0, sumW: Float = 0, sumLogW: Float = 0
        let lo = speechBins.lowerBound
        for k in speechBins {
            let p = power[k] + eps
            let n = floor[bandOfBin[k - lo]]
            let w = p / n
            level += p
            sumW += w
            sumLogW += log(w)
        }
        let bins = Float(speechBins.count)
        for b in 0..<count { noise += floor[b] * Float(bands[b].count) }
        return VADFeatures(levelDb: 10 * log10(level / bins), noiseDb: 10 * log10(noise / bins),
                           logFlatness: sumLogW / bins - log(sumW / bins))
    }
}
