/// The VAD's settings, as the node's parameters give them.
public struct VADConfiguration: Sendable, Equatable {
    /// 0…3: 0 reports the most speech, 3 the least (see `VADClassifier.Thresholds.aggressiveness`).
    public var aggressiveness: Int
    public var hangoverMs: Int
    public var minSpeechMs: Int
    public var preRollMs: Int
    /// Non-speech inside speech after which `.speechPausing` is reported (0: never; only below `hangoverMs`).
    public var pauseHintMs: Int
    /// Speech this long is split at its quietest point of the last `splitSearchMs` (0: never).
    public var maxSpeechMs: Int

    public init(aggressiveness: Int = VADConfiguration.defaults.aggressiveness,
                hangoverMs: Int = VADConfiguration.defaults.hangoverMs,
                minSpeechMs: Int = VADConfiguration.defaults.minSpeechMs,
                preRollMs: Int = VADConfiguration.defaults.preRollMs,
                pauseHintMs: Int = VADConfiguration.defaults.pauseHintMs,
                maxSpeechMs: Int = VADConfiguration.defaults.maxSpeechMs) {
        self.aggressiveness = aggressiveness
        self.hangoverMs = hangoverMs
        self.minSpeechMs = minSpeechMs
        self.preRollMs = preRollMs
        self.pauseHintMs = pauseHintMs
        self.maxSpeechMs = maxSpeechMs
    }

    /// How far back from `maxSpeechMs` a split point is looked for: the recognizer replays an utterance's start
    /// from a 4 s ring, so the split (plus the decision delay) must stay within it.
    public static let splitSearchMs = 3000

    /// The defaults: the best mean frame F1 over the SNRs of benchmarks/vad.sh (see benchmarks/README.md);
    /// `pauseHintMs` gives a recognizer 450 ms head start on its final pass at the default hangover; `maxSpeechMs`
    /// keeps utterances (cut between 17 and 20 s) inside whisper's 30 s window with room to pack, and under the
    /// recognizer's own 30 s cap, which cuts wherever it falls.
    public static let defaults = (aggressiveness: 1, hangoverMs: 650, minSpeechMs: 100, preRollMs: 50, pauseHintMs: 200,
                                  maxSpeechMs: 20_000)
}

/// A voice-activity detector over one stream of mono samples: a frame classifier (the engine: `spectral`'s
/// `SpectralFrameClassifier` by default, or any `VADFrameClassifier`) decides speech per frame, and
/// `VADStateMachine` turns the decisions into start and end positions.
///
/// Positions count samples from the first one fed (position 0). The result does not depend on how the samples
/// are split into calls.
///
/// Confinement: one thread at a time (the classifier's rule).
public final class VoiceActivityDetector {
    public let sampleRate: Int
    public let configuration: VADConfiguration
    /// The engine's classifier.
    public let classifier: any VADFrameClassifier
    private var stateMachine: VADStateMachine
    /// Frames decided so far.
    private var framesDecided: Int64 = 0
    /// Samples fed so far.
    public private(set) var position: Int64 = 0

    /// The spectral engine.
    /// - Parameters:
    ///   - classifier: replaces the classifier `configuration.aggressiveness` picks (for experiments).
    ///   - featureSettings: the feature extractor's band and noise-tracking settings.
    public convenience init(sampleRate: Int, configuration: VADConfiguration = VADConfiguration(),
                            classifier: VADClassifier? = nil,
                            featureSettings: VADFeatureExtractor.Settings = VADFeatureExtractor.Settings()) {
        let decisions = classifier
            ?? VADClassifier(thresholds: VADClassifier.Thresholds.aggressiveness(configuration.aggressiveness))
        self.init(sampleRate: sampleRate, configuration: configuration,
                  frameClassifier: SpectralFrameClassifier(sampleRate: sampleRate, classifier: decisions,
                                                           featureSettings: featureSettings))
    }

    /// Any engine's classifier, which must work at `sampleRate`.
    public init(sampleRate: Int, configuration: VADConfiguration, frameClassifier: any VADFrameClassifier) {
        precondition(sampleRate >= 1000)
        self.sampleRate = sampleRate
        self.configuration = configuration
        self.classifier = frameClassifier
        stateMachine = VADStateMachine(minSpeechMs: configuration.minSpeechMs, hangoverMs: configuration.hangoverMs,
                                       preRollMs: configuration.preRollMs, pauseHintMs: configuration.pauseHintMs,
                                       maxSpeechMs: configuration.maxSpeechMs,
                                       splitSearchMs: VADConfiguration.splitSearchMs, sampleRate: sampleRate)
    }

    /// Whether speech has been reported and not yet ended.
    public var isSpeaking: Bool { stateMachine.isSpeaking }

    /// Feeds mono samples; calls `report` with each start or end decided inside them, in order.
    public func process(_ samples: UnsafeBufferPointer<Float>,
                        _ report: (VADStateMachine.Action) throws -> Void) throws {
        position += Int64(samples.count)
        let length = Int64(classifier.frameLength)
        try classifier.process(samples) { decision in
            let index = framesDecided
            framesDecided += 1
            if let action = stateMachine.frame(start: index * length, end: (index + 1) * length, isSpeech: decision.isSpeech,
                                                  levelDb: decision.levelDb) {
                try report(action)
            }
        }
    }

    /// Feeds interleaved samples of `channels` channels, analysing their average. `scratch` is reused (no
    /// allocation once it has grown to the largest buffer).
    public func process(interleaved samples: UnsafeBufferPointer<Float>, channels: Int, scratch: inout [Float],
                        _ report: (VADStateMachine.Action) throws -> Void) throws {
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
}
