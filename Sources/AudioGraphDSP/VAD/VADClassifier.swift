/// Decides, frame by frame, whether a frame holds speech, from its `VADFeatures`.
///
/// 1. The features are averaged over `smoothingFrames` consecutive frames (a moving average). The decision it
///    returns is for the frame in the middle of that window, so it lags the newest frame by `delay` frames.
/// 2. A frame is *speech-like* when its noise-whitened spectrum is far from flat: harmonics and formants
///    standing out of the noise floor, `-logFlatness` above `flatnessOn` (above the lower `flatnessOff` once
///    speech has started: hysteresis). Noise of any level and colour reads about 0.58.
/// 3. A speech level is tracked: a running 90th percentile of the speech-band level of speech-like frames.
///    A speech-like frame more than `gateDb` below it (`gateDb + gateHysteresisDb` while speaking) and less than
///    `clearSNRDb` above the noise floor is taken for background (distant talkers, babble), not the speaker.
///    Until the level is known (from the first speech-like frame `levelStartSNRDb` above the floor, or after
///    `levelStartFrames` of them), only frames clear of the floor pass, so faint tonal room noise at the start
///    of a stream is not taken for speech.
///
/// `aggressiveness` 0…3 picks the thresholds, like webrtcvad's modes: 0 reports the most speech (fewest missed
/// words), 3 the least (fewest false alarms). The values were set with benchmarks/vad.sh.
public struct VADClassifier {
    public struct Thresholds: Sendable, Equatable {
        /// `-logFlatness` at which a frame becomes speech-like (noise alone averages 0.58).
        public var flatnessOn: Float
        /// `-logFlatness` below which a speech-like run stops.
        public var flatnessOff: Float
        /// A speech-like frame this far above the noise floor (dB) passes the speech-level gate.
        public var clearSNRDb: Float
        /// Speech-like frames more than this far below the tracked speech level (dB) are background.
        public var gateDb: Float
        /// Frames quieter than this (dB, speech band) are never speech.
        public var minimumLevelDb: Float

        public init(flatnessOn: Float, flatnessOff: Float, clearSNRDb: Float, gateDb: Float,
                    minimumLevelDb: Float = -80) {
            self.flatnessOn = flatnessOn
            self.flatnessOff = flatnessOff
            self.clearSNRDb = clearSNRDb
            self.gateDb = gateDb
            self.minimumLevelDb = minimumLevelDb
        }

        /// The thresholds of an aggressiveness level (clamped to 0…3).
        public static func aggressiveness(_ level: Int) -> Thresholds {
            switch min(max(level, 0), 3) {
            case 0: return Thresholds(flatnessOn: 0.62, flatnessOff: 0.59, clearSNRDb: 10, gateDb: 13)
            case 1: return Thresholds(flatnessOn: 0.66, flatnessOff: 0.60, clearSNRDb: 12, gateDb: 10)
            case 2: return Thresholds(flatnessOn: 0.70, flatnessOff: 0.63, clearSNRDb: 12, gateDb: 9)
            default: return Thresholds(flatnessOn: 0.75, flatnessOff: 0.67, clearSNRDb: 14, gateDb: 8)
            }
        }
    }

    public var thresholds: Thresholds
    /// Frames averaged (odd).
    public let smoothingFrames: Int
    /// Speech-level tracker steps, dB per frame: up when a frame is louder than the level, down otherwise
    /// (their ratio sets the percentile: down/(up+down) = 1 − 0.9).
    public var levelUpDb: Float = 0.3
    public var levelDownDb: Float = 0.3 / 9
    /// Speech-like frames not clear of the floor that pass before a speech level is known (at the start of a
    /// stream, tonal room noise is not taken for speech until then).
    public var levelStartFrames = 30
    /// A speech-like frame this far above the noise floor (dB) starts the speech level at once.
    public var levelStartSNRDb: Float = 6
    /// ... or this tonal (`-logFlatness`; clear harmonics, as of a voice in noise).
    public var levelStartTonality: Float = 1.0
    /// Added to `gateDb` once speaking, so the quieter ends of words are not cut.
    public var gateHysteresisDb: Float = 8

    private var history: [VADFeatures]
    private var filled = 0
    private var cursor = 0
    private var speaking = false
    private var speechLevelDb: Float?
    private var unreferencedFrames = 0

    public init(thresholds: Thresholds, smoothingFrames: Int = 9) {
        precondition(smoothingFrames >= 1 && smoothingFrames % 2 == 1, "smoothingFrames must be odd")
        self.thresholds = thresholds
        self.smoothingFrames = smoothingFrames
        history = [VADFeatures](repeating: VADFeatures(levelDb: 0, noiseDb: 0, logFlatness: 0),
                                count: smoothingFrames)
    }

    /// How many frames the decision lags the newest frame.
    public var delay: Int { smoothingFrames / 2 }

    /// Adds the newest frame's features; returns the decision for the frame `delay` frames before it, or nil
    /// while the first window fills.
    public mutating func classify(_ features: VADFeatures) -> Bool? {
        history[cursor] = features
        cursor = (cursor + 1) % smoothingFrames
        if filled < smoothingFrames {
            filled += 1
            if filled <= delay { return nil }
        }
        // Average over the frames in the window (the newest `delay` + 1 at the start, then all of them).
        var level: Float = 0, noise: Float = 0, flatness: Float = 0
        let count = min(filled, smoothingFrames)
        for i in 0..<count {
            let f = history[i]
            level += f.levelDb
            noise += f.noiseDb
            flatness += f.logFlatness
        }
        let n = Float(count)
        level /= n
        noise /= n
        let tonality = -flatness / n
        let t = thresholds
        let speechLike = tonality > (speaking ? t.flatnessOff : t.flatnessOn)
        let clear = level - noise > t.clearSNRDb
        if speechLike {
            if let tracked = speechLevelDb {
                speechLevelDb = tracked + (level > tracked ? levelUpDb : -levelDownDb)
            } else {
                // The level starts at the first speech-like frame `levelStartSNRDb` above the floor, or after
                // `levelStartFrames` speech-like frames in all (speech in strong noise may never get there).
                unreferencedFrames += 1
                if level - noise > levelStartSNRDb || tonality > levelStartTonality
                    || unreferencedFrames >= levelStartFrames {
                    speechLevelDb = level
                }
            }
        }
        // Until a speech level is known, only frames clear of the floor pass (the frame that starts the level
        // passes too).
        let loudEnough = level >= t.minimumLevelDb
            && (clear || speechLevelDb.map { level > $0 - t.gateDb - (speaking ? gateHysteresisDb : 0) } ?? false)
        speaking = speechLike && loudEnough
        return speaking
    }
}
