/// The VAD's settings, as the node's parameters give them.
public struct VADConfiguration: Sendable, Equatable {
    /// 0…3: 0 reports the most speech, 3 the least (see `VADClassifier.Thresholds.aggressiveness`).
    public var aggressiveness: Int
    public var hangoverMs: Int
    public var minSpeechMs: Int
    public var preRollMs: Int
    /// Non-speech inside speech after which `.speechPausing` is reported (0: never; only below `hangoverMs`).
    public var pauseHintMs: Int

    public init(aggressiveness: Int = VADConfiguration.defaults.aggressiveness,
                hangoverMs: Int = VADConfiguration.defaults.hangoverMs,
                minSpeechMs: Int = VADConfiguration.defaults.minSpeechMs,
                preRollMs: Int = VADConfiguration.defaults.preRollMs,
                pauseHintMs: Int = VADConfiguration.defaults.pauseHintMs) {
        self.aggressiveness = aggressiveness
        self.hangoverMs = hangoverMs
        self.minSpeechMs = minSpeechMs
        self.preRollMs = preRollMs
        self.pauseHintMs = pauseHintMs
    }

    /// The defaults: the best mean frame F1 over the SNRs of benchmarks/vad.sh (see benchmarks/README.md);
    /// `pauseHintMs` gives a recognizer 450 ms head start on its final pass at the default hangover.
    public static let defaults = (aggressiveness: 1, hangoverMs: 650, minSpeechMs: 100, preRollMs: 50, pauseHintMs: 200)
}

/// A voice-activity detector over one stream of mono samples: frames the samples (10 ms hop, a Hann window of
/// 20–32 ms: the power of two at or above 20 ms), takes each frame's power spectrum (`SpectralAnalyzer`),
/// measures it over an adaptive noise floor (`VADFeatureExtractor`), decides speech per frame
/// (`VADClassifier`) and turns the decisions into start and end positions (`VADStateMachine`).
///
/// Positions count samples from the first one fed (position 0). The result does not depend on how the samples
/// are split into calls. Frame `k` stands for samples `[k·hop, (k+1)·hop)`; its window is centred on that span
/// (the stream is taken to be preceded by zeros), so decisions come `window/2 + hop/2` samples plus the
/// classifier's smoothing delay after the audio they describe.
///
/// Confinement: one thread at a time (it owns an FFTW plan's buffers).
public final class VoiceActivityDetector {
    public let sampleRate: Int
    public let configuration: VADConfiguration
    /// Samples between frames (10 ms).
    public let hop: Int
    /// Samples in an analysis window (the FFT size).
    public let windowSize: Int

    private let analyzer: SpectralAnalyzer
    private var extractor: VADFeatureExtractor
    private var classifier: VADClassifier
    private var stateMachine: VADStateMachine
    /// The analysis window being filled; `fill` samples are valid.
    private var frame: [Float]
    private var fill: Int
    private var power: [Float]
    /// Frames analyzed so far, and frames decided (decisions lag by the classifier's delay).
    private var framesAnalyzed: Int64 = 0
    private var framesDecided: Int64 = 0
    /// Samples fed so far.
    public private(set) var position: Int64 = 0

    /// - Parameters:
    ///   - classifier: replaces the classifier `configuration.aggressiveness` picks (for experiments).
    ///   - featureSettings: the feature extractor's band and noise-tracking settings.
    public init(sampleRate: Int, configuration: VADConfiguration = VADConfiguration(),
                classifier: VADClassifier? = nil,
                featureSettings: VADFeatureExtractor.Settings = VADFeatureExtractor.Settings()) {
        precondition(sampleRate >= 1000)
        self.sampleRate = sampleRate
        self.configuration = configuration
        hop = max(1, Int((Double(sampleRate) / 100).rounded()))
        var size = 16
        while size * 50 < sampleRate { size *= 2 }  // the power of two ≥ 20 ms
        windowSize = size
        analyzer = SpectralAnalyzer(size: size)
        extractor = VADFeatureExtractor(sampleRate: sampleRate, fftSize: size, settings: featureSettings)
        self.classifier = classifier
            ?? VADClassifier(thresholds: VADClassifier.Thresholds.aggressiveness(configuration.aggressiveness))
        stateMachine = VADStateMachine(minSpeechMs: configuration.minSpeechMs, hangoverMs: configuration.hangoverMs,
                                       preRollMs: configuration.preRollMs, pauseHintMs: configuration.pauseHintMs,
                                       sampleRate: sampleRate)
        frame = [Float](repeating: 0, count: size)
        // Zeros before the stream, so frame 0's window is centred on samples [0, hop).
        fill = size / 2 - hop / 2
        power = [Float](repeating: 0, count: size / 2 + 1)
    }

    /// Whether speech has been reported and not yet ended.
    public var isSpeaking: Bool { stateMachine.isSpeaking }

    /// Feeds mono samples; calls `report` with each start or end decided inside them, in order.
    public func process(_ samples: UnsafeBufferPointer<Float>,
                        _ report: (VADStateMachine.Action) throws -> Void) rethrows {
        var offset = 0
        while offset < samples.count {
            let take = min(windowSize - fill, samples.count - offset)
            frame.withUnsafeMutableBufferPointer { dest in
                for i in 0..<take { dest[fill + i] = samples[offset + i] }
            }
            fill += take
            offset += take
            position += Int64(take)
            if fill == windowSize {
                if let action = analyzeFrame() { try report(action) }
                // Slide by one hop.
                frame.withUnsafeMutableBufferPointer { buffer in
                    for i in 0..<(windowSize - hop) { buffer[i] = buffer[i + hop] }
                }
                fill = windowSize - hop
            }
        }
    }

    /// Feeds interleaved samples of `channels` channels, analysing their average. `scratch` is reused (no
    /// allocation once it has grown to the largest buffer).
    public func process(interleaved samples: UnsafeBufferPointer<Float>, channels: Int, scratch: inout [Float],
                        _ report: (VADStateMachine.Action) throws -> Void) rethrows {
        if channels == 1 {
            try process(samples, report)
            return
        }
        let frames = samples.count / channels
        if scratch.count < frames { scratch.append(contentsOf: repeatElement(0, count: frames - scratch.count)) }
        let scale = 1 / Float(channels)
        scratch.withUnsafeMutableBufferPointer { mono in
            for i in 0..<frames {
                var sum: Float = 0
                for c in 0..<channels { sum += samples[i * channels + c] }
                mono[i] = sum * scale
            }
        }
        try scratch.withUnsafeBufferPointer { mono in
            try process(UnsafeBufferPointer(rebasing: mono[0..<frames]), report)
        }
    }

    /// End of stream: ends ongoing speech at the last sample fed.
    public func finish() -> VADStateMachine.Action? {
        stateMachine.finish(at: position)
    }

    private func analyzeFrame() -> VADStateMachine.Action? {
        frame.withUnsafeBufferPointer { input in
            power.withUnsafeMutableBufferPointer { output in
                analyzer.powerSpectrum(of: input, into: output)
            }
        }
        let features = power.withUnsafeBufferPointer { extractor.analyze($0) }
        framesAnalyzed += 1
        guard let isSpeech = classifier.classify(features) else { return nil }
        let index = framesDecided
        framesDecided += 1
        let h = Int64(hop)
        return stateMachine.frame(start: index * h, end: (index + 1) * h, isSpeech: isSpeech)
    }
}
