import AudioGraphCore
import Foundation

/// A whisper decoder: one model and one `whisper_state` (about 100 MB of buffers for tiny.en): decoded on the
/// node's thread in file runs, on the background queue in real-time runs, where partials and eager finals also
/// run (finals wait for no partial: a running one is aborted first).
///
/// Confinement: the recognizer node's thread, one call at a time; the background decoder keeps its state to
/// its own queue (`WhisperBackground`).
///
/// - Finals: each utterance is decoded whole, greedy or with `beamSize` beams, with temperature fallback when
///   `temperatureIncrement` asks, words timed by token timestamps; text of earlier finals is carried into the
///   prompt only when `contextWords` asks for it; the encoder reads whisper's 30 s window, or in real time
///   (`audioContext` auto) only the audio plus a margin (`WhisperAudioContext`).
/// - Partials (real time only): the growing utterance is decoded again in the background whenever the node asks
///   and no decode is running, and not sooner after the last one than that one took (so partials use at most
///   about half of the time); `partialHypothesis` returns the newest finished one and never waits.
/// - File runs (not real time, `packing` auto/on): `endUtteranceDeferring` holds utterances until the next would
///   not fit in one 30 s window with 2 s of silence between them, then decodes the window once and gives
///   each utterance its words (`WhisperPacker`).
public final class WhisperRecognizer: SpeechRecognizer, LanguageSwitching {
    public let capabilities: RecognizerCapabilities
    public let settings: WhisperSettings
    /// The loaded model: the config's, or the caption language's default (switched with the language).
    private var model: WhisperModel
    /// File runs: finals are decoded here, on the node's thread.
    private var finalState: WhisperState?
    /// Real-time runs: every decode goes through it.
    private var background: WhisperBackground?
    /// How finals are decoded; its `initialPrompt` is the script and user prompt, before the carried words.
    private var decodeOptions: WhisperDecodeOptions
    /// Words of earlier finals for the next final's prompt (`contextWords`).
    private var carried: WhisperCarriedText
    /// The caption language decoded now.
    public private(set) var language: String
    private let filter: WhisperHallucinationFilter
    private let packer = WhisperPacker()
    /// Hold utterances back and decode them packed (when the node defers finals).
    private let packs: Bool
    private let node: NodeConfiguration
    /// Log whisper.cpp's messages while this recognizer lives (`--verbose`).
    private let verboseToken: WhisperLog.VerboseToken?
    private var verbose: Bool { verboseToken != nil }

    /// The current utterance's audio (bounded by the node's `maxUtteranceSeconds`).
    private var utterance: [Float] = []
    private var utteranceNumber = 0
    private var collecting = false
    /// Frames fed when the last partial decode was asked for.
    private var framesAtLastPartial = 0
    private var eager: EagerFinal?
    /// Ended utterances whose results are held (packing).
    private var held: [[Float]] = []

    /// whisper_full calls for finals (eager ones included): for tests and the measurements.
    public private(set) var finalDecodes = 0
    /// Finals that were an eager decode's result.
    public private(set) var eagerFinalsUsed = 0
    /// Utterances whose decoded words the hallucination rules rejected, by rule (annotations such as
    /// `[BLANK_AUDIO]` are dropped before the rules and not counted).
    public private(set) var rejections: [WhisperHallucinationFilter.Rejection: Int] = [:]

    /// Loads the model of `options` (exit 69 at `nodes.ID.model` when it cannot).
    public init(_ options: RecognizerOptions) throws {
        verboseToken = options.verbose ? WhisperLog.VerboseToken() : nil
        node = options.node
        settings = WhisperSettings(options.parameters, language: options.language)
        capabilities = WhisperEngine.capabilities(options)
        model = try WhisperEngine.loadModel(at: settings.model, install: WhisperEngine.installName(settings, options.language),
                                            node: options.node)
        let state = try Self.makeState(model, node: options.node)
        filter = WhisperHallucinationFilter(settings)
        carried = WhisperCarriedText(limit: settings.contextWords)
        guard let whisperLanguage = WhisperLanguages.whisperCode(for: options.language) else {
            throw options.node.error("whisper has no language for \(options.language)", parameter: "language")
        }
        language = options.language
        decodeOptions = WhisperDecodeOptions(threads: settings.threads, beamSize: settings.beams,
                                             temperatureIncrement: settings.temperatureIncrement,
                                             language: whisperLanguage,
                                             initialPrompt: WhisperLanguages.initialPrompt(for: options.language,
                                                                                           userPrompt: settings.initialPrompt),
                                             noSpeechThreshold: settings.noSpeechThreshold,
                                             logProbThreshold: settings.logProbThreshold,
                                             compressionRatioThreshold: settings.compressionRatioThreshold,
                                             fitsAudioContext: settings.fitsAudioContext(realtime: options.realtime))
        if options.realtime {
            background = WhisperBackground(state: state, finalOptions: decodeOptions, filter: filter)
            finalState = nil
        } else {
            background = nil
            finalState = state
        }
        packs = settings.packs && !options.realtime
    }

    deinit {
        background?.abortPartial()
        eager?.abort.abort()
        background?.drain()
    }

    /// Decodes the next utterances in `code` (a caption code of `capabilities.languages`), with its script
    /// prompt; the node calls it between utterances, after flushing held results.
    public func switchLanguage(to code: String) throws {
        guard capabilities.languages.contains(code), let whisperLanguage = WhisperLanguages.whisperCode(for: code) else {
            throw node.error("whisper model \(model.path) cannot do \(code); it has "
                             + capabilities.languages.joined(separator: ", "), parameter: "language")
        }
        try loadModel(for: code)
        language = code
        decodeOptions.language = whisperLanguage
        decodeOptions.initialPrompt = WhisperLanguages.initialPrompt(for: code, userPrompt: settings.initialPrompt)
        carried.clear()
        background?.finalOptions = finalOptions
    }

    /// Without a `model` in the config, loads the default model of `code` when it is not the one loaded (English
    /// to another language: tiny.en to the multilingual model, and back). The old model's decodes are finished or
    /// aborted first; the switch takes as long as the load (benchmarks in docs/speech.md).
    private func loadModel(for code: String) throws {
        let path = settings.model(forLanguage: code)
        guard path != model.path else { return }
        let next = try WhisperEngine.loadModel(at: path, install: WhisperEngine.installName(settings, code), node: node)
        let state = try Self.makeState(next, node: node)
        eager?.abort.abort()
        eager = nil
        if let background {
            background.abortPartial()
            background.drain()
            self.background = WhisperBackground(state: state, finalOptions: finalOptions, filter: filter)
        } else {
            finalState = state
        }
        model = next
        modelSwitches += 1
    }

    private static func makeState(_ model: WhisperModel, node: NodeConfiguration) throws -> WhisperState {
        guard let state = model.makeState() else {
            throw node.error("whisper could not allocate a decoder for \(model.path)", parameter: "model", code: .unavailable)
        }
        return state
    }

    /// The model file loaded now.
    public var modelPath: String { model.path }

    /// Models loaded after the first (a language switch that needed another model).
    public private(set) var modelSwitches = 0

    /// The options of the next final: `decodeOptions` with the carried words after its prompt.
    private var finalOptions: WhisperDecodeOptions {
        var options = decodeOptions
        options.initialPrompt = carried.prompt(after: decodeOptions.initialPrompt)
        return options
    }

    /// The prompt the next final is decoded with: the background decoder's in real-time runs (for tests).
    var nextFinalPrompt: String? { (background?.finalOptions ?? finalOptions).initialPrompt }

    /// Partial decodes finished (real-time runs).
    public var partialsDecoded: Int { background?.partialsDecoded.load(ordering: .relaxed) ?? 0 }

    /// For tests: waits until the background decoder is idle.
    func waitForBackground() { background?.drain() }

    public func startUtterance() throws {
        background?.abortPartial()
        eager?.abort.abort()
        eager = nil
        utterance.removeAll(keepingCapacity: true)
        utteranceNumber += 1
        framesAtLastPartial = 0
        collecting = true
    }

    public func process(_ samples: UnsafeBufferPointer<Float>) throws {
        utterance.append(contentsOf: samples)
    }

    /// The newest finished partial of this utterance; asks for a new one when the background is idle and at least
    /// as much audio came in since the last request as the last decode took (its backoff).
    public func partialHypothesis() -> String {
        guard let background, collecting else { return "" }
        let backoff = Int(background.lastPartialDuration * Double(capabilities.sampleRate))
        if !background.isBusy && utterance.count - framesAtLastPartial >= max(backoff, Self.minimumPartialFrames) {
            framesAtLastPartial = utterance.count
            background.decodePartial(utterance, utterance: utteranceNumber)
        }
        return background.partial(of: utteranceNumber)
    }

    /// A partial needs this much new audio (1 s) at least: a decode of the first quarter second costs nearly as
    /// much as a later one (the encoder's margin is 7.68 s) and rarely has a word yet.
    static let minimumPartialFrames = 16000

    /// Starts the final decode of the first `frames` frames in the background (real-time runs): a partial still
    /// running is aborted, an earlier eager decode of other frames too.
    public func prepareFinal(speechEndsAfter frames: Int) {
        guard let background, collecting, frames > 0, frames <= utterance.count else { return }
        if let eager, eager.frames == frames { return }
        eager?.abort.abort()
        background.abortPartial()
        let job = EagerFinal(utterance: utteranceNumber, frames: frames)
        eager = job
        finalDecodes += 1
        background.decodeFinal(Array(utterance[0..<frames]), job)
    }

    public func endUtterance(speechEndsAfter frames: Int) throws -> RecognitionResult {
        if frames < utterance.count { utterance.removeLast(utterance.count - max(0, frames)) }
        if let eager, eager.utterance == utteranceNumber, eager.frames == utterance.count {
            self.eager = nil
            collecting = false
            if let window = eager.wait() {
                eagerFinalsUsed += 1
                return result(of: window)
            }
        }
        return try endUtterance()
    }

    public func endUtterance() throws -> RecognitionResult {
        background?.abortPartial()
        eager?.abort.abort()
        eager = nil
        collecting = false
        return try decodeAlone(utterance)
    }

    /// Ends the utterance; in file runs with packing its result is held until its window is decoded. Returns
    /// the results now complete, oldest first.
    public func endUtteranceDeferring(speechEndsAfter frames: Int?) throws -> [RecognitionResult] {
        guard packs else {
            return [try frames.map { try endUtterance(speechEndsAfter: $0) } ?? endUtterance()]
        }
        if let frames, frames < utterance.count { utterance.removeLast(utterance.count - max(0, frames)) }
        collecting = false
        var results: [RecognitionResult] = []
        if !packer.fits(utterance.count, after: held.map(\.count)) { results += try flushDeferredResults() }
        if utterance.count > packer.windowFrames {
            // Longer than a window: whisper seeks through it on its own.
            results.append(try decodeAlone(utterance))
        } else {
            held.append(utterance)
        }
        return results
    }

    /// Decodes the held utterances' window; their results, oldest first.
    public func flushDeferredResults() throws -> [RecognitionResult] {
        guard !held.isEmpty else { return [] }
        defer { held.removeAll() }
        if held.count == 1 { return [try decodeAlone(held[0])] }
        let window = try decode(packer.assemble(held))
        let words = packer.assign(window.words, toUtterancesOf: held.map(\.count))
        return words.map { result(of: $0, noSpeechProbability: window.noSpeechProbability) }
    }

    /// Decodes one utterance in a window of its own.
    private func decodeAlone(_ samples: [Float]) throws -> RecognitionResult {
        guard !samples.isEmpty else { return RecognitionResult(text: "") }
        return result(of: try decode(samples))
    }

    private func decode(_ samples: [Float]) throws -> WhisperWindow {
        finalDecodes += 1
        let decoded: WhisperWindow?
        if let background {
            background.abortPartial()
            let job = EagerFinal(utterance: utteranceNumber, frames: samples.count)
            background.decodeFinal(samples, job)
            decoded = job.wait()
        } else {
            let options = finalOptions
            decoded = finalState.flatMap { state in samples.withUnsafeBufferPointer { state.decode($0, options) } }
        }
        guard let window = decoded else {
            throw node.error("whisper failed to decode the utterance (\(model.path))", code: .nodeFailed)
        }
        return window
    }

    private func result(of window: WhisperWindow) -> RecognitionResult {
        result(of: window.words, noSpeechProbability: window.noSpeechProbability)
    }

    /// The final of an utterance's words: empty when the hallucination rules reject them; the confidence is the
    /// mean of the words' (each the geometric mean of its tokens' probabilities).
    private func result(of words: [WhisperWord], noSpeechProbability: Double) -> RecognitionResult {
        guard !words.isEmpty else { return RecognitionResult(text: "") }
        if let rejection = filter.rejection(of: words, noSpeechProbability: noSpeechProbability) {
            rejections[rejection, default: 0] += 1
            if verbose {
                let line = String(format: "whisper: dropped \"%@\" (%@; no-speech probability %.2f, average log-probability %.2f)\n",
                                  WhisperWords.text(of: words), rejection.rawValue, noSpeechProbability,
                                  WhisperHallucinationFilter.averageLogProbability(words))
                TerminalScreen.shared.print(TerminalText.escape(line, keepingNewlines: true), to: .standardError)
            }
            return RecognitionResult(text: "")
        }
        let confidence = words.map(\.confidence).reduce(0, +) / Double(words.count)
        let text = WhisperWords.text(of: words)
        if carried.limit > 0 {
            carried.add(text)
            background?.finalOptions = finalOptions
        }
        return RecognitionResult(text: text, confidence: confidence,
                                 words: words.map { RecognizedWord(word: $0.text, start: $0.start, end: $0.end, confidence: $0.confidence) })
    }
}
