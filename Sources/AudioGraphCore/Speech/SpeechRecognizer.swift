
/// What a recognizer engine can do. The recognizer node and the session layer read this instead of knowing
/// engines by name.
public struct RecognizerCapabilities: Sendable, Equatable {
    /// Takes audio while the speaker talks (rather than a whole file at the end).
    public var streaming: Bool
    /// Gives partial hypotheses mid-utterance.
    public var partialResults: Bool
    /// Gives each word's start and end time.
    public var wordTimings: Bool
    /// Caption language codes it recognizes.
    public var languages: [String]
    /// The sample rate it needs (mono); the graph builder inserts a resampler in front of it when needed.
    public var sampleRate: Int
    /// What would make more languages available (another model to install, …); said with a refused language.
    public var languageHint: String?
    /// Audio the engine wants around each utterance the VAD gives: `leadIn` seconds before its start (never
    /// before the previous utterance's audio) and `tail` seconds after its end for the final pass.
    public var context: UtteranceContext

    public init(streaming: Bool, partialResults: Bool, wordTimings: Bool, languages: [String], sampleRate: Int,
                languageHint: String? = nil, context: UtteranceContext = UtteranceContext()) {
        self.streaming = streaming
        self.partialResults = partialResults
        self.wordTimings = wordTimings
        self.languages = languages
        self.sampleRate = sampleRate
        self.languageHint = languageHint
        self.context = context
    }
}

/// Audio a recognizer engine wants around the speech the VAD found (`RecognizerCapabilities.context`).
public struct UtteranceContext: Sendable, Equatable {
    /// Seconds of audio before the VAD's start of speech (beyond the VAD's own pre-roll).
    public var leadIn: Double
    /// Seconds of audio after the VAD's end of speech given to the final pass.
    public var tail: Double

    /// The default: no lead-in, 0.2 s of tail (pocketsphinx wants a little silence to close the utterance).
    public init(leadIn: Double = 0, tail: Double = 0.2) {
        self.leadIn = leadIn
        self.tail = tail
    }
}

/// A recognized word; an engine gives times in seconds from the start of the utterance (the recognizer node
/// moves them onto the stream's clock). The same type as a transcript's words.
public typealias RecognizedWord = TranscriptUpdate.Word

/// The final result of one utterance.
public struct RecognitionResult: Sendable, Equatable {
    public var text: String
    /// 0…1, when the engine gives one.
    public var confidence: Double?
    public var words: [RecognizedWord]

    public init(text: String, confidence: Double? = nil, words: [RecognizedWord] = []) {
        self.text = text
        self.confidence = confidence
        self.words = words
    }
}

/// One decoder instance. The recognizer node drives it utterance by utterance from its own thread
/// (confinement: one thread at a time; no locks needed inside). An engine that works in the background for
/// `prepareFinal` keeps that work to itself (a decoder of its own) and synchronizes it internally.
///
/// Lifecycle: `startUtterance`, any number of `process` and `partialHypothesis` calls, then `endUtterance`
/// — repeated per utterance. Deinitialization releases the engine.
public protocol SpeechRecognizer: AnyObject {
    var capabilities: RecognizerCapabilities { get }
    func startUtterance() throws
    /// Mono samples at `capabilities.sampleRate`, nominally -1…1.
    func process(_ samples: UnsafeBufferPointer<Float>) throws
    /// The best hypothesis so far in the current utterance ("" when none).
    func partialHypothesis() -> String
    func endUtterance() throws -> RecognitionResult
    /// Ends the utterance knowing that speech ended after its first `frames` frames (the VAD's end, plus a
    /// short tail): an engine that decodes the utterance again for its final may stop there. Default:
    /// `endUtterance()`.
    func endUtterance(speechEndsAfter frames: Int) throws -> RecognitionResult
    /// Speech may end after the first `frames` frames of the current utterance (the VAD heard a pause; speech
    /// may also resume): an engine whose final pass decodes the utterance again may start it now, in the
    /// background, so that `endUtterance(speechEndsAfter:)` with the same `frames` returns its result sooner.
    /// The final must be the same as without the call. `frames` never exceeds the frames fed so far; the node
    /// calls this only when the graph runs in real time. Default: nothing.
    func prepareFinal(speechEndsAfter frames: Int)
    /// Ends the current utterance and lets the engine hold its result back (to decode several utterances in one
    /// window when the graph is not real time). Returns the results that are now complete, oldest first: results
    /// of earlier held utterances and/or this one, each exactly once, in utterance order. Words stay relative to
    /// the start of their own utterance; an empty text means nothing was said. The node calls it instead of
    /// `endUtterance` only when `RecognizerOptions.realtime` is false.
    /// Default: `[try endUtterance(speechEndsAfter: frames)]` (or `[try endUtterance()]` when frames is nil).
    func endUtteranceDeferring(speechEndsAfter frames: Int?) throws -> [RecognitionResult]
    /// Every result still held, oldest first. The node calls it at finish, flush, stopTranscription, setLanguage.
    /// Default: [].
    func flushDeferredResults() throws -> [RecognitionResult]
}

extension SpeechRecognizer {
    public func endUtterance(speechEndsAfter frames: Int) throws -> RecognitionResult { try endUtterance() }
    public func prepareFinal(speechEndsAfter frames: Int) {}
    public func endUtteranceDeferring(speechEndsAfter frames: Int?) throws -> [RecognitionResult] {
        if let frames { return [try endUtterance(speechEndsAfter: frames)] }
        return [try endUtterance()]
    }
    public func flushDeferredResults() throws -> [RecognitionResult] { [] }
}

/// Hints a node sends downstream without showing them to observers (`NodeContext.forward`), as
/// `.custom(type:kind:fields:)` events.
public enum SpeechHints {
    /// From the VAD, kind `speech`, no fields: speech may be ending at the event's time (where a pause began;
    /// a `speechEnded` that follows in the same pause has the same time). A recognizer may start its final pass.
    public static let speechPausing = "speechPausing"
}

/// Settings an engine is made from: the recognizer node's parameters, resolved.
public struct RecognizerOptions: Sendable {
    /// The caption language code asked for.
    public var language: String
    /// The chosen engine's own parameters (its `RecognizerEngine.parameters`), validated, defaults filled in,
    /// paths resolved to absolute paths.
    public var parameters: JSONObject
    /// Let the engine print its own logs.
    public var verbose: Bool
    /// Whether `partialHypothesis` will be asked for (an engine may skip its streaming pass when not).
    public var wantsPartials: Bool = true
    /// The graph runs at the pace of its audio (`RunOptions.realtime`): `prepareFinal` may be called, and an
    /// engine may spend a background thread on it.
    public var realtime: Bool = false
    /// The recognizer node's configuration, for errors that name a parameter.
    public var node: NodeConfiguration

    public init(language: String, parameters: JSONObject, verbose: Bool, node: NodeConfiguration) {
        self.language = language
        self.parameters = parameters
        self.verbose = verbose
        self.node = node
    }
}

/// A recognizer engine type: its name, what it can do, and how to make a decoder. Engines are registered in
/// `RecognizerEngines` (like swift-log's `LogHandler`: a process-wide default that tests and embedders can
/// add to), and a config picks one with the recognizer node's `engine` parameter.
public struct RecognizerEngine: Sendable {
    public let name: String
    public let summary: String
    /// The engine's own parameters, set on the recognizer node beside the node's common ones.
    public let parameters: [ParameterSpec]
    /// The capabilities the engine will have for these options (languages may depend on the models given).
    public let capabilities: @Sendable (RecognizerOptions) -> RecognizerCapabilities
    /// Checks the options before any audio flows (models exist, …). Throws `GraphError`s naming parameters.
    public let validate: @Sendable (RecognizerOptions) throws -> Void
    /// Makes a decoder (loads models). Called once per run, from `start`.
    public let make: @Sendable (RecognizerOptions) throws -> any SpeechRecognizer
    /// Whether `engine: "auto"` may pick it now (for whisper: its default model file exists). Default: true.
    public let availableByDefault: @Sendable () -> Bool

    public init(name: String, summary: String, parameters: [ParameterSpec] = [],
                capabilities: @escaping @Sendable (RecognizerOptions) -> RecognizerCapabilities,
                validate: @escaping @Sendable (RecognizerOptions) throws -> Void = { _ in },
                availableByDefault: @escaping @Sendable () -> Bool = { true },
                make: @escaping @Sendable (RecognizerOptions) throws -> any SpeechRecognizer) {
        self.name = name
        self.summary = summary
        self.parameters = parameters
        self.capabilities = capabilities
        self.validate = validate
        self.availableByDefault = availableByDefault
        self.make = make
    }
}
