import AudioGraphCore
import Foundation

/// `recognizer`: speech to text with a pluggable engine (`engine`, default `pocketsphinx`).
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
/// Control: `stopTranscription` ends the current utterance (its final is emitted) and ignores audio until
/// `startTranscription`; `flush` ends the current utterance.
public final class RecognizerNode: AudioNode {
    public static let descriptor = NodeDescriptor(
        type: "recognizer",
        summary: "Speech recognition with a swappable engine (pocketsphinx built in); partial and final transcripts with word times.",
        category: .filter,
        parameters: [
            ParameterSpec("engine", .string, default: "pocketsphinx",
                          doc: "Recognizer engine; built in: pocketsphinx. Plugins and embedders register more."),
            ParameterSpec("language", .choice(SessionSettings.supportedLanguages),
                          doc: "Caption language code; defaults to the session's captionLanguage. The engine must support it."),
            ParameterSpec("partials", .choice(["auto", "on", "off"]), default: "auto",
                          doc: "Partial hypotheses while speech goes on: auto gives them when the graph runs in real time (a "
                              + "microphone, a file played at 1x) and skips them for batch jobs, where they would cost a second decode."),
            ParameterSpec("partialIntervalMs", .integer(range: 0...10_000), default: 250,
                          doc: "How often a partial hypothesis is taken while speech goes on, in ms of audio; 0 for finals only."),
            ParameterSpec("silenceMs", .integer(range: 100...10_000), default: 1000,
                          doc: "With no VAD upstream: silence that ends an utterance."),
            ParameterSpec("maxUtteranceSeconds", .number(range: 1...600), default: 30,
                          doc: "An utterance longer than this is cut (a final is emitted) and a new one begins."),
            ParameterSpec("hmm", .path(.inputFolder), doc: "pocketsphinx: acoustic model folder (default: Debian's en-US)."),
            ParameterSpec("lm", .path(.input), doc: "pocketsphinx: language model (default: Debian's en-us.lm.bin)."),
            ParameterSpec("dict", .path(.input), doc: "pocketsphinx: pronunciation dictionary (default: cmudict-en-us.dict)."),
            ParameterSpec("keyphrase", .string, doc: "pocketsphinx: spot this phrase instead of full recognition."),
            ParameterSpec("kwsThreshold", .number(range: 1e-50...1), doc: "pocketsphinx: keyphrase detection threshold."),
            ParameterSpec("grammar", .path(.input), doc: "pocketsphinx: a JSGF grammar to recognize instead of the language model."),
            ParameterSpec("modelLanguage", .choice(SessionSettings.supportedLanguages), default: "en-US",
                          doc: "pocketsphinx: the language of the models given with hmm/lm/dict."),
            ParameterSpec("finalPass", .choice(["utterance", "streaming"]), default: "utterance",
                          doc: "pocketsphinx: utterance re-decodes each utterance whole for its final (pocketsphinx_batch's accuracy); "
                              + "streaming keeps the live pass's result (less CPU, weaker first words)."),
            ParameterSpec("maxActiveHMMs", .integer(range: 100...100_000), default: 4000,
                          doc: "pocketsphinx: at most this many HMMs searched per frame in the whole-utterance final pass (its -maxhmmpf); "
                              + "4000 decoded the test speech 1.7x faster than pocketsphinx's 30000 with the same words."),
        ],
        inputs: [.init(requires: [.audio])],
        outputs: [.init(produces: [.transcript], forwardsInput: false)],
        acceptedFormats: FormatRequirement(sampleRates: [16000], channels: 1...1),
        execution: .queued(capacity: 256))

    /// Parameters that belong to the engine rather than the node.
    static let engineParameters = ["hmm", "lm", "dict", "keyphrase", "kwsThreshold", "grammar", "modelLanguage", "finalPass",
                                   "maxActiveHMMs"]

    private let configuration: NodeConfiguration
    private let engine: RecognizerEngine
    private var options: RecognizerOptions
    public let capabilities: RecognizerCapabilities
    private let partialInterval: Int
    private let partialsMode: String
    private let silenceMs: Int
    private let maxUtteranceFrames: Int64

    private var recognizer: (any SpeechRecognizer)?
    private var followsVAD = false
    private var ring = AudioRing(capacity: 16000 * 4)
    private var endpointer: SilenceEndpointer
    private var endpointerFrame: [Float] = []
    private var active = true
    private var sampleRate = 16000

    // The current utterance.
    private var utteranceStart: Int64?
    private var fedUpTo: Int64 = 0
    private var framesSincePartial = 0
    private var segment = 0
    private var revision = 0
    private var lastPartial = ""
    private var waitingForSound = false
    private var vadInSpeech = false
    /// Stream position where transcription last started; audio before it is never fed.
    private var activeFrom: Int64 = 0
    /// The graph runs in real time: pass the VAD's pause hints to the engine.
    private var realtime = false
    /// A pause hint's frame count not yet passed to the engine (waiting for its audio to be fed).
    private var pendingFinalFrames: Int?

    public init(configuration: NodeConfiguration) throws {
        self.configuration = configuration
        let name = configuration.string("engine") ?? "pocketsphinx"
        guard let engine = RecognizerEngines.engine(named: name) else {
            throw configuration.error("unknown recognizer engine \"\(name)\"" + Suggestions.hint(for: name, in: RecognizerEngines.names)
                + "; engines: " + RecognizerEngines.names.joined(separator: ", "), parameter: "engine")
        }
        self.engine = engine
        var engineParameters = JSONObject()
        for key in Self.engineParameters {
            guard let value = configuration.values[key] else { continue }
            if case .path = Self.descriptor.parameter(named: key)?.kind, let path = configuration.path(key) {
                engineParameters[key] = .string(path)
            } else {
                engineParameters[key] = value
            }
        }
        let language = configuration.string("language") ?? configuration.session.captionLanguage
        options = RecognizerOptions(language: language, parameters: engineParameters, verbose: false, node: configuration)
        capabilities = engine.capabilities(options)
        guard capabilities.languages.contains(language) else {
            let location = configuration.string("language") != nil ? configuration.jsonPath("language").description : "session.captionLanguage"
            throw GraphError(.invalidConfig, at: location,
                             "recognizer engine \"\(name)\" cannot do \(language); it has " + capabilities.languages.joined(separator: ", "),
                             node: configuration.id)
        }
        try engine.validate(options)
        partialInterval = (configuration.int("partialIntervalMs") ?? 250) * capabilities.sampleRate / 1000
        partialsMode = configuration.string("partials") ?? "auto"
        options.wantsPartials = partialInterval > 0 && capabilities.partialResults && partialsMode != "off"
        silenceMs = configuration.int("silenceMs") ?? 1000
        maxUtteranceFrames = Int64((configuration.double("maxUtteranceSeconds") ?? 30) * Double(capabilities.sampleRate))
        endpointer = SilenceEndpointer(silenceFrames: max(1, silenceMs / 10))
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
        if partialsMode == "auto" && !context.options.realtime { options.wantsPartials = false }
        sampleRate = context.inputFormat?.sampleRate ?? capabilities.sampleRate
        ring = AudioRing(capacity: sampleRate * 4)
        endpointerFrame.reserveCapacity(sampleRate / 100)
        followsVAD = context.inputKinds.contains(.speech)
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
                if utteranceStart != nil { try feed(samples, at: buffer.position, context) }
            } else {
                try processWithoutVAD(samples, at: buffer.position, context)
            }
        }
    }

    public func handle(_ event: Event, _ context: NodeContext) throws {
        context.forward(event)
        guard followsVAD, recognizer != nil else { return }
        // Follow the VAD even while stopped, so a restart in mid-sentence picks the sentence up.
        if case .speechStarted = event.payload { vadInSpeech = true }
        if case .speechEnded = event.payload { vadInSpeech = false }
        guard active else { return }
        let position = Int64((event.time * Double(sampleRate)).rounded())
        switch event.payload {
        case .speechStarted:
            if utteranceStart != nil { try endUtterance(at: position, context) }
            try beginUtterance(at: position, context)
        case .speechEnded:
            vadInSpeech = false
            if utteranceStart != nil { try endUtterance(at: position, context, speechEnded: true) }
        case .custom(SpeechHints.speechPausing, _, _):
            guard realtime, let start = utteranceStart else { break }
            pendingFinalFrames = finalFrames(speechEndingAt: position, start: start)
            prepareFinalIfFed()
        default:
            break
        }
    }

    public func handle(_ command: ControlCommand, _ context: NodeContext) throws {
        switch command {
        case .stopTranscription:
            if utteranceStart != nil { try endUtterance(at: fedUpTo, context) }
            active = false
        case .startTranscription where !active:
            active = true
            // Nothing from before the start is transcribed, not even as pre-roll.
            activeFrom = ring.endPosition
            waitingForSound = false
            if followsVAD && vadInSpeech { try beginUtterance(at: activeFrom, context) }
        case .flush:
            if utteranceStart != nil { try endUtterance(at: fedUpTo, context) }
            waitingForSound = false
        case .setLanguage(let code) where capabilities.languages.contains(code):
            // Later utterances are tagged with it (the session validated it against the engine).
            options.language = code
        default:
            break
        }
        context.send(command)
    }

    public func finish(_ context: NodeContext) throws {
        if utteranceStart != nil { try endUtterance(at: fedUpTo, context) }
    }

    public func stop() {
        recognizer = nil
    }

    // MARK: - Utterances

    private func processWithoutVAD(_ samples: UnsafeBufferPointer<Float>, at position: Int64, _ context: NodeContext) throws {
        if utteranceStart == nil && !waitingForSound {
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
            if utteranceStart != nil { try feed(chunk, at: chunkPosition, context) }
            guard endpointerFrame.count == frameLength else { continue }
            let sum = endpointerFrame.reduce(0.0) { $0 + Double($1) * Double($1) }
            let rms = (sum / Double(frameLength)).squareRoot()
            endpointerFrame.removeAll(keepingCapacity: true)
            let frameEnd = chunkPosition + Int64(take)
            switch endpointer.add(frameRmsDb: rms > 0 ? 20 * log10(rms) : -120) {
            case .soundStarted:
                if utteranceStart == nil && waitingForSound {
                    waitingForSound = false
                    // Start a little before the sound so the first phone is whole.
                    try beginUtterance(at: max(0, frameEnd - Int64(frameLength) - Int64(sampleRate * 3 / 10)), context)
                }
            case .longSilence:
                if utteranceStart != nil {
                    try endUtterance(at: frameEnd, context)
                    waitingForSound = true
                }
            case .none:
                break
            }
        }
    }

    private func beginUtterance(at position: Int64, _ context: NodeContext) throws {
        guard let recognizer else { return }
        try recognizer.startUtterance()
        let start = max(position, ring.startPosition, activeFrom)
        utteranceStart = start
        fedUpTo = start
        framesSincePartial = 0
        revision = 0
        lastPartial = ""
        pendingFinalFrames = nil
        segment += 1
        // Replay what the ring holds from the start on (the VAD's pre-roll and decision delay).
        try ring.read(from: start) { samples in try feed(samples, at: fedUpTo, context, replay: true) }
    }

    private func feed(_ samples: UnsafeBufferPointer<Float>, at position: Int64, _ context: NodeContext,
                      replay: Bool = false) throws {
        guard let recognizer, let start = utteranceStart else { return }
        // Skip what was already fed (a replay overlaps the live buffer that triggered it).
        let skip = Int(max(0, min(Int64(samples.count), fedUpTo - position)))
        guard skip < samples.count else { return }
        let fresh = UnsafeBufferPointer(rebasing: samples[skip...])
        try recognizer.process(fresh)
        fedUpTo = position + Int64(samples.count)
        framesSincePartial += fresh.count
        if pendingFinalFrames != nil { prepareFinalIfFed() }
        if options.wantsPartials && framesSincePartial >= partialInterval {
            framesSincePartial = 0
            let text = recognizer.partialHypothesis()
            if !text.isEmpty && text != lastPartial {
                lastPartial = text
                revision += 1
                emit(TranscriptUpdate(segment: segment, revision: revision, isFinal: false, start: seconds(start),
                                      end: seconds(fedUpTo), text: text, language: options.language), context)
            }
        }
        if fedUpTo - start >= maxUtteranceFrames && !replay {
            try endUtterance(at: fedUpTo, context)
            try beginUtterance(at: fedUpTo, context)
        }
    }

    /// Audio kept after the VAD's end of speech for the final pass (pocketsphinx wants a little silence to close
    /// the utterance).
    static let speechEndTailSeconds = 0.2

    /// The frames of an utterance from `start` that a speech end at `position` keeps for the final pass: up to
    /// the end plus the tail. The same for a pause hint and the `speechEnded` at the same time.
    private func finalFrames(speechEndingAt position: Int64, start: Int64) -> Int {
        Int(position - start) + Int(Self.speechEndTailSeconds * Double(sampleRate))
    }

    /// Passes a pause hint to the engine once the audio it covers has been fed (a resampler between the VAD and
    /// the node may deliver the hint before that audio).
    private func prepareFinalIfFed() {
        guard let frames = pendingFinalFrames, let recognizer, let start = utteranceStart else { return }
        guard fedUpTo - start >= Int64(frames) else { return }
        pendingFinalFrames = nil
        recognizer.prepareFinal(speechEndsAfter: frames)
    }

    private func endUtterance(at position: Int64, _ context: NodeContext, speechEnded: Bool = false) throws {
        guard let recognizer, let start = utteranceStart else { return }
        utteranceStart = nil
        pendingFinalFrames = nil
        let result: RecognitionResult
        if speechEnded {
            let frames = finalFrames(speechEndingAt: position, start: start)
            result = try recognizer.endUtterance(speechEndsAfter: frames)
        } else {
            result = try recognizer.endUtterance()
        }
        guard !result.text.isEmpty || revision > 0 else {
            segment -= 1  // nothing was said: the id is used by the next utterance
            return
        }
        revision += 1
        let offset = seconds(start)
        let words = result.words.map {
            RecognizedWord(word: $0.word, start: offset + $0.start, end: offset + $0.end, confidence: $0.confidence)
        }
        // The utterance ends where the VAD said speech ended (audio fed past it is its hangover), never before
        // its last word.
        let end = max(seconds(min(position, fedUpTo)), words.last?.end ?? offset)
        emit(TranscriptUpdate(segment: segment, revision: revision, isFinal: true, start: offset,
                              end: end, text: result.text,
                              confidence: result.confidence, words: words, language: options.language), context)
    }

    private func emit(_ update: TranscriptUpdate, _ context: NodeContext) {
        context.emit(.transcript(update), at: update.end)
    }

    private func seconds(_ position: Int64) -> Double { Double(position) / Double(sampleRate) }
}

extension RecognizerNode: TranscriberRole {
    public var engineName: String { engine.name }
    public var supportedLanguages: [String] { capabilities.languages }
}
