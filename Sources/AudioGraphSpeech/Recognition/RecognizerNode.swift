import AudioGraphCore
import Foundation

/// `recognizer`: speech to text with a pluggable engine (`engine`, default `auto`: the first of
/// `RecognizerEngines.autoPreference` that is available). Each engine declares its own parameters, which the
/// config sets on the node beside the common ones (`RecognizerEngines.parameterGroups`).
///
/// Utterances follow the VAD's `speechStarted` / `speechEnded` events when a VAD is upstream (audio from the
/// VAD's reported start — which includes its pre-roll — is replayed from a short ring buffer); with no VAD
/// upstream the node finds utterances itself, cutting at silences of `silenceMs`. While speech goes on it emits
/// a partial hypothesis every `partialIntervalMs` of audio (when the text changed), and a final result at the
/// utterance end; each carries a segment id and a revision number, so caption sinks replace text in place.
/// A finalized segment never changes.
///
/// Eager final pass: when the graph runs in real time and the VAD sends its `speechPausing` hint (a pause that
/// may end the utterance), the node calls the engine's `prepareFinal` with the frame count a `speechEnded` at
/// that time would give `endUtterance(speechEndsAfter:)`, so an engine that re-decodes the utterance for its
/// final can start before the VAD's hangover has passed. The final is the same, only sooner.
///
/// Deferred finals: when the graph is not real time the node ends utterances with `endUtteranceDeferring`, so
/// an engine may hold finals back and decode several utterances at once; `UtteranceTracker` pairs the results
/// with their utterances in order. Held finals are flushed at finish, `flush`, `stopTranscription` and
/// `setLanguage`.
///
/// Language: `setLanguage` applies from the next utterance on (an utterance under way keeps its language); an
/// engine that is `LanguageSwitching` then decodes in the new language, and every result is tagged with it.
///
/// Control: `stopTranscription` ends the current utterance (its final is emitted) and ignores audio until
/// `startTranscription`; `flush` ends the current utterance.
public final class RecognizerNode: AudioNode {
    /// `partials`: when partial hypotheses are taken.
    enum PartialsMode: String, CaseIterable, Sendable {
        /// When the graph runs in real time.
        case auto
        case on
        case off
    }

    static let engineName = Parameter.string(
        "engine", default: RecognizerEngines.auto,
        doc: "Recognizer engine: auto (the first of " + RecognizerEngines.autoPreference.joined(separator: ", ")
            + " that is installed), or an engine's name; plugins and embedders register more. "
            + "Each engine takes parameters of its own beside these (below).")
    static let partials = Parameter.choice(
        "partials", default: PartialsMode.auto,
        doc: "Partial hypotheses while speech goes on: auto gives them when the graph runs in real time (a "
            + "microphone, a file played at 1x) and skips them for batch jobs, where they would cost a second decode.")
    static let partialIntervalMs = Parameter.integer(
        "partialIntervalMs", range: 0...10_000, default: 250,
        doc: "How often a partial hypothesis is taken while speech goes on, in ms of audio; 0 for finals only.")
    static let silenceMs = Parameter.integer("silenceMs", range: 100...10_000, default: 1000,
                                             doc: "With no VAD upstream: silence that ends an utterance.")
    static let maxUtteranceSeconds = Parameter.number(
        "maxUtteranceSeconds", range: 1...600, default: 30,
        doc: "An utterance longer than this is cut (a final is emitted) and a new one begins.")

    public static let descriptor = NodeDescriptor(
        type: "recognizer",
        summary: "Speech recognition with a swappable engine (pocketsphinx built in); partial and final transcripts with word times.",
        category: .filter,
        parameters: [
            engineName.spec,
            ParameterSpec("language", .choice(SessionSettings.supportedLanguages),
                          doc: "Caption language code; defaults to the session's captionLanguage. The engine must support it."),
            partials.spec,
            partialIntervalMs.spec,
            silenceMs.spec,
            maxUtteranceSeconds.spec,
        ],
        inputs: [.init(requires: [.audio])],
        outputs: [.init(produces: [.transcript], forwardsInput: false)],
        acceptedFormats: FormatRequirement(sampleRates: [16000], channels: 1...1),
        execution: .queued(capacity: 256),
        parameterGroups: RecognizerEngines.parameterGroups)

    private let configuration: NodeConfiguration
    private let engine: RecognizerEngine
    /// Why `auto` picked the engine (nil when the config named it).
    private let autoReason: String?
    private var options: RecognizerOptions
    public let capabilities: RecognizerCapabilities
    private let partialInterval: Int
    private let partialsMode: PartialsMode
    private let silenceMs: Int
    private let maxUtteranceFrames: Int64

    private var recognizer: (any SpeechRecognizer)?
    private var followsVAD = false
    private var ring = AudioRing(capacity: 16000 * 4)
    private var endpointer: SilenceEndpointer
    private var endpointerFrame: [Float] = []
    private var active = true
    private var sampleRate = 16000
    private var waitingForSound = false
    private var vadInSpeech = false
    /// The graph runs in real time: pass the VAD's pause hints to the engine, and take finals as they come.
    private var realtime = false
    private var utterances: UtteranceTracker
    /// A `setLanguage` that waits for the utterance under way to end.
    private var pendingLanguage: String?

    public init(configuration: NodeConfiguration) throws {
        self.configuration = configuration
        let name = configuration[Self.engineName]
        guard let choice = RecognizerEngines.choose(name) else { throw RecognizerEngines.unknownEngine(name, in: configuration) }
        engine = choice.engine
        autoReason = choice.reason
        // The builder validated them against the engine's specs (defaults in); paths are made absolute here.
        var engineParameters = JSONObject()
        for spec in engine.parameters {
            guard let value = configuration.values[spec.name] else { continue }
            if case .path = spec.kind, let path = configuration.path(spec.name) {
                engineParameters[spec.name] = .string(path)
            } else {
                engineParameters[spec.name] = value
            }
        }
        let language = configuration.string("language") ?? configuration.session.captionLanguage
        options = RecognizerOptions(language: language, parameters: engineParameters, verbose: false, node: configuration)
        capabilities = engine.capabilities(options)
        guard capabilities.languages.contains(language) else {
            let location = configuration.string("language") != nil ? configuration.jsonPath("language").description : "session.captionLanguage"
            throw GraphError(.invalidConfig, at: location,
                             "recognizer engine \"\(engine.name)\" cannot do \(language); it has " + capabilities.languages.joined(separator: ", ")
                                 + (capabilities.languageHint.map { "; " + $0 } ?? ""),
                             node: configuration.id)
        }
        try engine.validate(options)
        partialInterval = configuration[Self.partialIntervalMs] * capabilities.sampleRate / 1000
        partialsMode = configuration[Self.partials]
        options.wantsPartials = partialInterval > 0 && capabilities.partialResults && partialsMode != .off
        silenceMs = configuration[Self.silenceMs]
        maxUtteranceFrames = Int64(configuration[Self.maxUtteranceSeconds] * Double(capabilities.sampleRate))
        endpointer = SilenceEndpointer(silenceFrames: max(1, silenceMs / 10))
        utterances = UtteranceTracker(sampleRate: capabilities.sampleRate, partialInterval: partialInterval,
                                      wantsPartials: options.wantsPartials, maxUtteranceFrames: maxUtteranceFrames,
                                      context: capabilities.context)
    }

    public var acceptedFormats: FormatRequirement {
        FormatRequirement(sampleRates: [capabilities.sampleRate], channels: 1...1)
    }

    /// The language transcripts are tagged with.
    public var language: String { options.language }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }

    public func start(_ context: NodeContext) throws {
        options.verbose = context.options.verbose
        realtime = context.options.realtime
        options.realtime = realtime
        if partialsMode == .auto && !context.options.realtime { options.wantsPartials = false }
        sampleRate = context.inputFormat?.sampleRate ?? capabilities.sampleRate
        ring = AudioRing(capacity: sampleRate * 4)
        endpointerFrame.reserveCapacity(sampleRate / 100)
        followsVAD = context.inputKinds.contains(.speech)
        utterances = UtteranceTracker(sampleRate: sampleRate, partialInterval: partialInterval,
                                      wantsPartials: options.wantsPartials, maxUtteranceFrames: maxUtteranceFrames,
                                      context: capabilities.context)
        recognizer = try engine.make(options)
        // Without a VAD the first utterance starts with the stream, as a whole-file decode would.
        waitingForSound = false
    }

    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        guard recognizer != nil else { return }
        try buffer.samples.withUnsafeBufferPointer { samples in
            ring.append(samples, at: buffer.position)
            guard active else { return }
            if followsVAD {
                if utterances.inUtterance { try feed(samples, at: buffer.position, context) }
            } else {
                try processWithoutVAD(samples, at: buffer.position, context)
            }
        }
    }

    public func handle(_ event: Event, _ context: NodeContext) throws {
        context.forward(event)
        guard followsVAD, let recognizer else { return }
        // Follow the VAD even while stopped, so a restart in mid-sentence picks the sentence up.
        if case .speechStarted = event.payload { vadInSpeech = true }
        if case .speechEnded = event.payload { vadInSpeech = false }
        guard active else { return }
        let position = Int64((event.time * Double(sampleRate)).rounded())
        switch event.payload {
        case .speechStarted:
            try endUtterance(at: position, context)
            try beginUtterance(at: position, context)
        case .speechEnded:
            try endUtterance(at: position, context, speechEnded: true)
        case .custom(SpeechHints.speechPausing, _, _):
            guard realtime, let frames = utterances.pause(at: position) else { break }
            recognizer.prepareFinal(speechEndsAfter: frames)
        default:
            break
        }
    }

    public func handle(_ command: ControlCommand, _ context: NodeContext) throws {
        switch command {
        case .stopTranscription:
            try endAndFlush(context)
            active = false
        case .startTranscription where !active:
            active = true
            // Nothing from before the start is transcribed, not even as pre-roll.
            utterances.activeFrom = ring.endPosition
            waitingForSound = false
            if followsVAD && vadInSpeech { try beginUtterance(at: utterances.activeFrom, context) }
        case .flush:
            try endAndFlush(context)
            waitingForSound = false
        case .setLanguage(let code) where capabilities.languages.contains(code):
            // From the next utterance on (the session validated it against the engine): an utterance under way
            // keeps its language, and so do held finals.
            pendingLanguage = code
            if !utterances.inUtterance { try applyPendingLanguage(context) }
        default:
            break
        }
        context.send(command)
    }

    public func finish(_ context: NodeContext) throws {
        try endAndFlush(context)
    }

    public func stop() {
        recognizer = nil
    }

    // MARK: - Utterances

    private func processWithoutVAD(_ samples: UnsafeBufferPointer<Float>, at position: Int64, _ context: NodeContext) throws {
        if !utterances.inUtterance && !waitingForSound {
            // Without a VAD an utterance starts with the stream (or the restart), as a whole-file decode would.
            try beginUtterance(at: position, context)
        }
        // Walk 10 ms frames through the endpointer, feeding the decoder as we go.
        let frameLength = max(1, sampleRate / 100)
        var offset = 0
        while offset < samples.count {
            let take = min(frameLength - endpointerFrame.count, samples.count - offset)
            endpointerFrame.append(contentsOf: UnsafeBufferPointer(rebasing: samples[offset..<(offset + take)]))
            let chunk = UnsafeBufferPointer(rebasing: samples[offset..<(offset + take)])
            let chunkPosition = position + Int64(offset)
            offset += take
            if utterances.inUtterance { try feed(chunk, at: chunkPosition, context) }
            guard endpointerFrame.count == frameLength else { continue }
            let sum = endpointerFrame.reduce(0.0) { $0 + Double($1) * Double($1) }
            let rms = (sum / Double(frameLength)).squareRoot()
            endpointerFrame.removeAll(keepingCapacity: true)
            let frameEnd = chunkPosition + Int64(take)
            switch endpointer.add(frameRmsDb: rms > 0 ? 20 * log10(rms) : -120) {
            case .soundStarted:
                if !utterances.inUtterance && waitingForSound {
                    waitingForSound = false
                    // Start a little before the sound so the first phone is whole.
                    try beginUtterance(at: max(0, frameEnd - Int64(frameLength) - Int64(sampleRate * 3 / 10)), context)
                }
            case .longSilence:
                if utterances.inUtterance {
                    try endUtterance(at: frameEnd, context)
                    waitingForSound = true
                }
            case .none:
                break
            }
        }
    }

    /// Switches to the language `setLanguage` asked for, between utterances: held finals are flushed first (they
    /// are decoded and tagged in the language they were spoken in), then the engine decodes in the new one.
    private func applyPendingLanguage(_ context: NodeContext) throws {
        guard let code = pendingLanguage else { return }
        pendingLanguage = nil
        try emit(recognizer?.flushDeferredResults() ?? [], context)
        try (recognizer as? any LanguageSwitching)?.switchLanguage(to: code)
        options.language = code
    }

    private func beginUtterance(at position: Int64, _ context: NodeContext) throws {
        guard let recognizer else { return }
        try applyPendingLanguage(context)
        try recognizer.startUtterance()
        let start = utterances.begin(at: position, earliest: ring.startPosition)
        // Replay what the ring holds from the start on (the VAD's pre-roll and decision delay).
        var replayed = start
        try ring.read(from: start) { samples in
            try feed(samples, at: replayed, context, replay: true)
            replayed += Int64(samples.count)
        }
    }

    private func feed(_ samples: UnsafeBufferPointer<Float>, at position: Int64, _ context: NodeContext,
                      replay: Bool = false) throws {
        guard let recognizer, utterances.inUtterance else { return }
        // Skip what was already fed (a replay overlaps the live buffer that triggered it).
        let skip = utterances.alreadyFed(samples.count, at: position)
        guard skip < samples.count else { return }
        let fresh = UnsafeBufferPointer(rebasing: samples[skip...])
        try recognizer.process(fresh)
        let actions = utterances.fed(fresh.count, upTo: position + Int64(samples.count), replay: replay)
        if let frames = actions.prepareFinal { recognizer.prepareFinal(speechEndsAfter: frames) }
        if actions.takePartial, let update = utterances.partial(recognizer.partialHypothesis(), language: options.language) {
            context.emit(.transcript(update), at: update.end)
        }
        if actions.cut, let fedUpTo = utterances.current?.fedUpTo {
            try endUtterance(at: fedUpTo, context)
            try beginUtterance(at: fedUpTo, context)
        }
    }

    /// Ends the open utterance, if any. In real time the engine gives its final now; otherwise it may hold it
    /// (`endUtteranceDeferring`) and give it with a later utterance's or at a flush.
    private func endUtterance(at position: Int64, _ context: NodeContext, speechEnded: Bool = false) throws {
        guard let recognizer, utterances.inUtterance else { return }
        let frames = utterances.end(at: position, speechEnded: speechEnded)
        let results: [RecognitionResult]
        if !realtime {
            results = try recognizer.endUtteranceDeferring(speechEndsAfter: frames)
        } else if let frames {
            results = [try recognizer.endUtterance(speechEndsAfter: frames)]
        } else {
            results = [try recognizer.endUtterance()]
        }
        try emit(results, context)
    }

    /// Ends the open utterance at the audio fed so far and emits every final the engine still holds.
    private func endAndFlush(_ context: NodeContext) throws {
        if let fedUpTo = utterances.current?.fedUpTo { try endUtterance(at: fedUpTo, context) }
        try emit(recognizer?.flushDeferredResults() ?? [], context)
    }

    /// Pairs results with the utterances they end, in order, and emits their finals.
    private func emit(_ results: [RecognitionResult], _ context: NodeContext) throws {
        guard !results.isEmpty else { return }
        let updates: [TranscriptUpdate]
        do {
            updates = try utterances.resolve(results, language: options.language)
        } catch {
            throw configuration.error("recognizer engine \"\(engine.name)\" returned a result (\"\(error.text)\") for no "
                + "utterance", code: .nodeFailed)
        }
        for update in updates { context.emit(.transcript(update), at: update.end) }
    }
}

extension RecognizerNode: NoteReporting {
    /// Which engine `auto` picked, and why (`recognizer asr: engine pocketsphinx (auto: …)`).
    public var buildNotes: [String] {
        autoReason.map { ["recognizer \(configuration.id): engine \(engine.name) (\($0))"] } ?? []
    }
}

extension RecognizerNode: TranscriberRole {
    public var engineName: String { engine.name }
    public var supportedLanguages: [String] { capabilities.languages }
    public var languageHint: String? { capabilities.languageHint }
}
