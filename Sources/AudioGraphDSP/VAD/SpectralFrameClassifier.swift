/// The `spectral` engine's frame classifier: frames the samples (10 ms hop, a Hann window of 20–32 ms: the power
/// of two at or above 20 ms), takes each frame's power spectrum (`SpectralAnalyzer`), measures it over an adaptive
/// noise floor (`VADFeatureExtractor`) and decides speech per frame (`VADClassifier`).
///
/// Frame `k` stands for samples `[k·hop, (k+1)·hop)`; its window is centred on that span (the stream is taken to
/// be preceded by zeros), so decisions come `window/2 + hop/2` samples plus the classifier's smoothing delay after
/// the audio they describe. The result does not depend on how the samples are split into calls.
///
/// Confinement: one thread at a time (it owns an FFTW plan's buffers).
public final class SpectralFrameClassifier: VADFrameClassifier {
    /// Samples between frames (10 ms).
    public let hop: Int
    /// Samples in an analysis window (the FFT size).
    public let windowSize: Int
    public var frameLength: Int { hop }

    private let analyzer: SpectralAnalyzer
    private var extractor: VADFeatureExtractor
    private var classifier: VADClassifier
    /// The analysis window being filled; `fill` samples are valid.
    private var frame: [Float]
    private var fill: Int
    private var power: [Float]
    /// The speech-band levels of the newest frames, so a decision (which lags) carries its own frame's level.
    private var levels: [Float]
    private var levelCursor = 0

    /// - Parameters:
    ///   - classifier: the decision thresholds and smoothing.
    ///   - featureSettings: the feature extractor's band and noise-tracking settings.
    public init(sampleRate: Int, classifier: VADClassifier,
                featureSettings: VADFeatureExtractor.Settings = VADFeatureExtractor.Settings()) {
        precondition(sampleRate >= 1000)
        hop = max(1, Int((Double(sampleRate) / 100).rounded()))
        var size = 16
        while size * 50 < sampleRate { size *= 2 }  // the power of two ≥ 20 ms
        windowSize = size
        analyzer = SpectralAnalyzer(size: size)
        extractor = VADFeatureExtractor(sampleRate: sampleRate, fftSize: size, settings: featureSettings)
        self.classifier = classifier
        frame = [Float](repeating: 0, count: size)
        // Zeros before the stream, so frame 0's window is centred on samples [0, hop).
        fill = size / 2 - hop / 2
        power = [Float](repeating: 0, count: size / 2 + 1)
        levels = [Float](repeating: -120, count: classifier.delay + 1)
    }

    public func process(_ samples: UnsafeBufferPointer<Float>, _ decide: (VADFrameDecision) throws -> Void) rethrows {
        var offset = 0
        while offset < samples.count {
            let take = min(windowSize - fill, samples.count - offset)
            frame.withUnsafeMutableBufferPointer { dest in
                for i in 0..<take { dest[fill + i] = samples[offset + i] }
            }
            fill += take
            offset += take
            if fill == windowSize {
                if let decision = analyzeFrame() { try decide(decision) }
                // Slide by one hop.
                frame.withUnsafeMutableBufferPointer { buffer in
                    for i in 0..<(windowSize - hop) { buffer[i] = buffer[i + hop] }
                }
                fill = windowSize - hop
            }
        }
    }

    private func analyzeFrame() -> VADFrameDecision? {
        frame.withUnsafeBufferPointer { input in
            power.withUnsafeMutableBufferPointer { output in
                analyzer.powerSpectrum(of: input, into: output)
            }
        }
        let features = power.withUnsafeBufferPointer { extractor.analyze($0) }
        // levels[levelCursor] is the frame `delay` frames before this one: the one the classifier decides now.
        let decidedLevel = levels[levelCursor]
        levels[levelCursor] = features.levelDb
        levelCursor = (levelCursor + 1) % levels.count
        guard let isSpeech = classifier.classify(features) else { return nil }
        return VADFrameDecision(isSpeech: isSpeech, levelDb: decidedLevel)
    }
}
