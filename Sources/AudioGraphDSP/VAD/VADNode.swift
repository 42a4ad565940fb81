import AudioGraphCore

/// `vad`: a voice-activity detector. Passes audio (and everything else) through unchanged and emits
/// `speechStarted` / `speechEnded` in band, stamped with the audio's own stream time.
///
/// Each event is emitted right after the buffer in which it was decided. Its time is where speech started
/// (moved back by `preRollMs`) or ended (the end of the last speech frame), so it lies earlier than that buffer:
/// a start is decided once `minSpeechMs` of speech has been heard, an end once `hangoverMs` of non-speech has
/// passed, both plus the analysis delay (about 60 ms). At end of stream, ongoing speech ends at the stream's end.
///
/// After `pauseHintMs` of non-speech inside speech (when below `hangoverMs`) it also sends a `speechPausing` hint
/// (`SpeechHints.speechPausing`, a custom `speech` event stamped where the pause began, like the `speechEnded` that
/// may follow) to the nodes downstream only: it is forwarded, not emitted, so observers (`--events`, sessions)
/// never see it. A recognizer starts its final pass on it. Only when the graph runs in real time
/// (`RunOptions.realtime`): a batch run has no latency to save, and its frames stay as they were.
///
/// `engine` picks the frame classifier (`VADEngines`): `spectral` (no model; any rate 8000–48000 Hz) or `silero`
/// (Silero VAD through whisper.cpp; 16 kHz, a resampler is put in front), or `auto`, the first of
/// `VADEngines.autoPreference` that is available. The decision logic after it is the same for all. The detector
/// works on the average of the channels. See `VoiceActivityDetector` and `SpectralFrameClassifier`.
public final class VADNode: AudioNode {
    static let engineName = Parameter.string("engine", default: VADEngines.defaultEngine,
        doc: "Frame classifier: spectral (no model), silero (audiograph models install silero), or auto "
            + "(the first of " + VADEngines.autoPreference.joined(separator: ", ") + " that is installed). "
            + "Each engine may take parameters of its own (below).")
    static let aggressiveness = Parameter.integer("aggressiveness", range: 0...3, default: VADConfiguration.defaults.aggressiveness,
        doc: "spectral engine: how readily audio is called non-speech, like webrtcvad's modes: 0 reports the most speech "
            + "(fewest cut words, more noise let through), 3 the least (fewest false alarms). "
            + "Default 1: the best mean frame F1 over 0-20 dB SNR in benchmarks/vad.sh.")
    static let hangoverMs = Parameter.integer("hangoverMs", range: 0...5000, default: VADConfiguration.defaults.hangoverMs,
        doc: "Speech continues through pauses shorter than this (ms), so a sentence is one segment; the end "
            + "is reported this long after the last speech frame, stamped at that frame's end. "
            + "Default 650, chosen by benchmarks/vad.sh.")
    static let minSpeechMs = Parameter.integer("minSpeechMs", range: 0...5000, default: VADConfiguration.defaults.minSpeechMs,
        doc: "A run of speech shorter than this (ms) is ignored (clicks, coughs); speechStarted is reported "
            + "once a run reaches it. Default 100, chosen by benchmarks/vad.sh.")
    static let preRollMs = Parameter.integer("preRollMs", range: 0...2000, default: VADConfiguration.defaults.preRollMs,
        doc: "speechStarted is stamped this much (ms) before the first speech frame, so a consumer that keeps "
            + "this much audio does not cut the first word; never before the stream's start or the previous "
            + "speechEnded. Default 50, chosen by benchmarks/vad.sh (raise it for a recognizer).")
    static let pauseHintMs = Parameter.integer("pauseHintMs", range: 0...5000, default: VADConfiguration.defaults.pauseHintMs,
        doc: "After this much non-speech inside speech, tell a recognizer downstream that speech may be "
            + "ending so it can start its final pass early (the final is the same, only sooner); 0: never. "
            + "Only below hangoverMs.")
    static let maxSpeechMs = Parameter.integer("maxSpeechMs", range: 0...600_000, default: VADConfiguration.defaults.maxSpeechMs,
        doc: "Speech that goes on this long (ms) is split: speechEnded and speechStarted at one time, at "
            + "the quietest point of the last 3 s (a pause between words when there is one), so a recognizer "
            + "never gets an utterance longer than it decodes well; 0: never. Default 20000 (whisper decodes "
            + "30 s windows).")

    public static let descriptor = NodeDescriptor(
        type: "vad",
        summary: "Voice-activity detector: passes audio through and emits speechStarted/speechEnded at the audio's "
            + "stream time. Engines: spectral (spectral flatness over an adaptive noise floor, FFTW; any rate 8000-48000 Hz) "
            + "and silero (the Silero VAD model through whisper.cpp; 16 kHz); then hangover, minimum speech length and "
            + "pre-roll. Any channels (their average is analysed).",
        category: .filter,
        parameters: [
            engineName.spec,
            aggressiveness.spec,
            hangoverMs.spec,
            minSpeechMs.spec,
            preRollMs.spec,
            pauseHintMs.spec,
            maxSpeechMs.spec,
        ],
        inputs: [.init(requires: [.audio])],
        outputs: [.init(produces: [.speech], forwardsInput: true)],
        acceptedFormats: FormatRequirement(sampleRates: VADNode.supportedSampleRates),
        parameterGroups: VADEngines.parameterGroups)

    /// The rates the detector accepts: the usual ones from 8 to 48 kHz.
    public static let supportedSampleRates = [8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000]

    public let configuration: VADConfiguration
    /// The engine: the frame classifier.
    public let engine: VADEngine
    /// Why `auto` picked the engine (nil when the config named it).
    private let autoReason: String?
    private let node: NodeConfiguration
    private var detector: VoiceActivityDetector?
    private var channels = 1
    private var sampleRate = 1
    /// Send `speechPausing` hints (real-time runs only).
    private var sendsPauseHints = false
    /// Stream position of the first sample the detector saw (detector positions count from it).
    private var origin: Int64?
    private var scratch: [Float] = []
    /// Decisions made inside the current buffer (kept to reuse its storage).
    private var pending: [VADStateMachine.Action] = []

    public init(configuration: NodeConfiguration) throws {
        let name = configuration[Self.engineName]
        guard let choice = VADEngines.choose(name) else { throw VADEngines.unknownEngine(name, in: configuration) }
        engine = choice.engine
        autoReason = choice.reason
        node = configuration
        try engine.validate(configuration)
        self.configuration = VADConfiguration(
            aggressiveness: configuration[Self.aggressiveness], hangoverMs: configuration[Self.hangoverMs],
            minSpeechMs: configuration[Self.minSpeechMs], preRollMs: configuration[Self.preRollMs],
            pauseHintMs: configuration[Self.pauseHintMs], maxSpeechMs: configuration[Self.maxSpeechMs])
    }

    public var acceptedFormats: FormatRequirement {
        FormatRequirement(sampleRates: engine.sampleRates)
    }

    public func start(_ context: NodeContext) throws {
        guard let format = context.inputFormat else { return }
        sampleRate = format.sampleRate
        channels = format.channels
        sendsPauseHints = context.options.realtime
        let classifier = try engine.make(node, format.sampleRate, configuration)
        detector = VoiceActivityDetector(sampleRate: format.sampleRate, configuration: configuration,
                                         frameClassifier: classifier)
        pending.reserveCapacity(4)
        scratch.reserveCapacity(4096)
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        context.emit(buffer)
        guard let detector else { return }
        let origin = self.origin ?? buffer.position
        self.origin = origin
        pending.removeAll(keepingCapacity: true)
        try buffer.samples.withUnsafeBufferPointer { samples in
            try detector.process(interleaved: samples, channels: channels, scratch: &scratch) { pending.append($0) }
        }
        for action in pending { emit(action, origin: origin, context) }
    }

    public func finish(_ context: NodeContext) throws {
        guard let detector, let origin, let action = detector.finish() else { return }
        emit(action, origin: origin, context)
    }

    public func stop() {
        detector = nil
    }

    private func emit(_ action: VADStateMachine.Action, origin: Int64, _ context: NodeContext) {
        switch action {
        case .speechStarted(let at):
            context.emit(.speechStarted, at: Double(origin + at) / Double(sampleRate))
        case .speechEnded(let at):
            context.emit(.speechEnded, at: Double(origin + at) / Double(sampleRate))
        case .speechSplit(let at):
            context.emit(.speechEnded, at: Double(origin + at) / Double(sampleRate))
            context.emit(.speechStarted, at: Double(origin + at) / Double(sampleRate))
        case .speechPausing(let at):
            guard sendsPauseHints else { return }
            // A hint for the nodes downstream, not an observable event: forwarded, so observers never see it.
            context.forward(Event(node: context.nodeID, time: Double(origin + at) / Double(sampleRate),
                                  payload: .custom(type: SpeechHints.speechPausing, kind: .speech, fields: JSONObject())))
        }
    }
}

extension VADNode: NoteReporting {
    /// Which engine `auto` picked, and why (`vad v: engine spectral (auto: …)`).
    public var buildNotes: [String] {
        autoReason.map { ["vad \(node.id): engine \(engine.name) (\($0))"] } ?? []
    }
}
