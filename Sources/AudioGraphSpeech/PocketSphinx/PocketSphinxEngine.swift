import AudioGraphCore
import CPocketSphinx
import Foundation
import Synchronization

/// The `pocketsphinx` engine: CMU PocketSphinx with Debian's en-US model by default (`pocketsphinx-en-us`).
public enum PocketSphinxEngine {
    /// Where Debian's package puts the en-US model.
    public static let defaultModelFolder = "/usr/share/pocketsphinx/model/en-us"
    public static let defaultHMM = defaultModelFolder + "/en-us"
    public static let defaultLM = defaultModelFolder + "/en-us.lm.bin"
    public static let defaultDictionary = defaultModelFolder + "/cmudict-en-us.dict"

    /// pocketsphinx's own parameters, set on the recognizer node beside its common ones.
    /// `finalPass`: where a final result comes from.
    enum FinalPass: String, CaseIterable, Sendable {
        /// Each utterance re-decoded whole (pocketsphinx_batch's accuracy).
        case utterance
        /// The live pass's result.
        case streaming
    }

    static let modelLanguage = Parameter.choice("modelLanguage", among: SessionSettings.supportedLanguages,
                                                default: "en-US", doc: "The language of the models given with hmm/lm/dict.")
    static let finalPass = Parameter.choice(
        "finalPass", default: FinalPass.utterance,
        doc: "utterance re-decodes each utterance whole for its final (pocketsphinx_batch's accuracy); "
            + "streaming keeps the live pass's result (less CPU, weaker first words).")
    static let maxActiveHMMs = Parameter.integer(
        "maxActiveHMMs", range: 100...100_000, default: 4000,
        doc: "At most this many HMMs searched per frame in the whole-utterance final pass (its -maxhmmpf); "
            + "4000 decoded the test speech 1.7x faster than pocketsphinx's 30000 with the same words.")

    public static let parameters: [ParameterSpec] = [
        ParameterSpec("hmm", .path(.inputFolder), doc: "Acoustic model folder (default: Debian's en-US)."),
        ParameterSpec("lm", .path(.input), doc: "Language model (default: Debian's en-us.lm.bin)."),
        ParameterSpec("dict", .path(.input), doc: "Pronunciation dictionary (default: cmudict-en-us.dict)."),
        ParameterSpec("keyphrase", .string, doc: "Spot this phrase instead of full recognition."),
        ParameterSpec("kwsThreshold", .number(range: 1e-50...1), doc: "Keyphrase detection threshold."),
        ParameterSpec("grammar", .path(.input), doc: "A JSGF grammar to recognize instead of the language model."),
        modelLanguage.spec,
        finalPass.spec,
        maxActiveHMMs.spec,
    ]

    /// 0.2 s of audio before the VAD's start of speech (after its 50 ms pre-roll) and 0.2 s after its end. The
    /// lead-in, measured on unseen speech (benchmarks/README.md, 2026-12-07): dev 235 / 302 / 314 errors (clean,
    /// 10 dB, 5 dB) against 241 / 314 / 318 without; heldout 366 / 395 / 390 against 370 / 398 / 399.
    static let utteranceContext = UtteranceContext(leadIn: 0.2, tail: 0.2)

    public static let engine = RecognizerEngine(
        name: "pocketsphinx",
        summary: "CMU PocketSphinx (Debian's en-US model by default; hmm/lm/dict/keyphrase/grammar overridable)",
        parameters: parameters,
        capabilities: { options in
            RecognizerCapabilities(streaming: true, partialResults: true, wordTimings: true,
                                   languages: [modelLanguage.value(in: options.parameters)],
                                   sampleRate: 16000, context: utteranceContext)
        },
        validate: { options in _ = try ModelFiles(options) },
        make: { options in try PocketSphinxRecognizer(options) })

    /// The model files a run uses, checked to exist.
    struct ModelFiles {
        var hmm: String
        var dictionary: String
        var languageModel: String?
        var keyphrase: String?
        var grammar: String?
        var keywordThreshold: Double?
        /// Re-decode each utterance whole for its final result (pocketsphinx_batch's accuracy), or take the
        /// streaming pass's result.
        var wholeUtteranceFinal: Bool
        /// The final pass's cap on active HMMs per frame (`-maxhmmpf`).
        var maxActiveHMMs: Int

        init(_ options: RecognizerOptions) throws {
            let p = options.parameters
            hmm = p["hmm"]?.stringValue ?? defaultHMM
            dictionary = p["dict"]?.stringValue ?? defaultDictionary
            keyphrase = p["keyphrase"]?.stringValue
            grammar = p["grammar"]?.stringValue
            keywordThreshold = p["kwsThreshold"]?.doubleValue
            wholeUtteranceFinal = PocketSphinxEngine.finalPass.value(in: p) == .utterance
            maxActiveHMMs = PocketSphinxEngine.maxActiveHMMs.value(in: p)
            if keyphrase != nil && grammar != nil {
                throw options.node.error("give either keyphrase or grammar, not both", parameter: "grammar")
            }
            languageModel = (keyphrase == nil && grammar == nil) ? (p["lm"]?.stringValue ?? defaultLM) : nil
            try Self.require(hmm, isDirectory: true, "hmm", options)
            try Self.require(dictionary, isDirectory: false, "dict", options)
            if let languageModel { try Self.require(languageModel, isDirectory: false, "lm", options) }
            if let grammar { try Self.require(grammar, isDirectory: false, "grammar", options) }
        }

        static func require(_ path: String, isDirectory: Bool, _ parameter: String, _ options: RecognizerOptions) throws {
            var directory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &directory)
            guard exists, directory.boolValue == isDirectory, FileManager.default.isReadableFile(atPath: path) else {
                let hint = path.hasPrefix(defaultModelFolder) ? " (install Debian's pocketsphinx-en-us)" : ""
                throw options.node.error("recognizer model unavailable: cannot read \(path)\(hint)",
                                         parameter: parameter, code: .unavailable)
            }
        }

        var arguments: [String] {
            // Our VAD finds the speech: pocketsphinx's own silence removal would also shift word times off the
            // stream clock.
            var args = ["-hmm", hmm, "-dict", dictionary, "-remove_silence", "no"]
            if let languageModel { args += ["-lm", languageModel] }
            if let keyphrase {
                args += ["-keyphrase", keyphrase]
                if let keywordThreshold { args += ["-kws_threshold", String(format: "%g", keywordThreshold)] }
            }
            if let grammar { args += ["-jsgf", grammar] }
            return args
        }
    }
}

/// A pocketsphinx decoder.
///
/// Confinement: the recognizer node's thread, one call at a time — except the eager final pass, which runs on a
/// background serial queue of its own (`EagerFinalPass`) with a decoder of its own; the two share only
/// `Speculation` objects, which are `Sendable` (a `Mutex` and a `DispatchGroup`).
final class PocketSphinxRecognizer: SpeechRecognizer {
    let capabilities: RecognizerCapabilities
    /// Decodes each utterance whole for its final result (like pocketsphinx_batch). A decoder keeps state across
    /// utterances (its front end's noise estimate), so partials run on a decoder of their own: the finals are
    /// then exactly what pocketsphinx_batch gives for the same audio.
    private let finalDecoder: OpaquePointer
    /// Runs while speech goes on, for partial hypotheses (nil when partials are off or the streaming pass
    /// gives the finals itself).
    private let streamingDecoder: OpaquePointer?
    /// The eager final pass (real-time runs with the whole-utterance final only).
    private let eager: EagerFinalPass?
    /// The current utterance's audio, for the whole-utterance final pass (bounded by the node's
    /// `maxUtteranceSeconds`).
    private var utterance: [Int16] = []
    private var inUtterance = false
    /// Between `startUtterance` and `endUtterance`.
    private var collecting = false
    /// Counts utterances, so a speculation is never taken for another utterance's final.
    private var utteranceNumber = 0
    /// The speculative final of the current utterance, if one was started.
    private var speculation: Speculation?
    /// The newest speculation submitted (maybe of an earlier utterance): a newer one cancels it if it still waits.
    private var lastSpeculation: Speculation?
    /// Speculations started, and finals that were a speculation's result (for tests and logs).
    private(set) var speculationsStarted = 0
    private(set) var speculationsUsed = 0
    /// Run the streaming pass (for partial hypotheses).
    private let streaming: Bool
    private let wholeUtteranceFinal: Bool
    private let node: NodeConfiguration

    /// sphinxbase's log target is process-wide: set it once, under a lock.
    private static let logLock = Mutex<Bool?>(nil)

    init(_ options: RecognizerOptions) throws {
        node = options.node
        capabilities = PocketSphinxEngine.engine.capabilities(options)
        let files = try PocketSphinxEngine.ModelFiles(options)
        wholeUtteranceFinal = files.wholeUtteranceFinal
        streaming = options.wantsPartials || !files.wholeUtteranceFinal
        // No `-logfn`: ps_init then opens that file and fcloses the previous process-wide log FILE, and two
        // pipelines starting at once (batch --jobs 2) closed the same FILE twice and deadlocked inside stdio.
        // The log is silenced process-wide instead.
        let arguments = files.arguments
        Self.logLock.withLock { quiet in
            if quiet != !options.verbose {
                audiograph_ps_quiet(options.verbose ? 0 : 1)
                quiet = !options.verbose
            }
        }
        // The whole-utterance finals' decoders cap the HMMs searched per frame (pocketsphinx's default, 30000, is
        // about 1.7x slower on the test speech for the same words); the partial pass has its own, narrower, settings.
        let finalArguments = arguments + (wholeUtteranceFinal ? ["-maxhmmpf", String(files.maxActiveHMMs)] : [])
        finalDecoder = try Self.makeDecoder(finalArguments, files, options)
        // The streaming decoder only gives partials (its own final is discarded): it skips the flat-lexicon and
        // lattice passes, looks at every second frame and searches narrower beams. Measured on examples/captions.json
        // (23.7 s): the partial pass costs 13% on top of the final pass instead of 100%, and partials still
        // read "mr john dashwood and then a leisure…" where they should.
        do {
            streamingDecoder = streaming && wholeUtteranceFinal
                ? try Self.makeDecoder(arguments + Self.partialPassArguments, files, options) : nil
        } catch {
            ps_free(finalDecoder)
            throw error
        }
        do {
            eager = options.realtime && wholeUtteranceFinal
                ? EagerFinalPass(decoder: try Self.makeDecoder(finalArguments, files, options)) : nil
        } catch {
            if let streamingDecoder { ps_free(streamingDecoder) }
            ps_free(finalDecoder)
            throw error
        }
    }

    static let partialPassArguments = ["-fwdflat", "no", "-bestpath", "no", "-ds", "2", "-maxhmmpf", "3000",
                                       "-maxwpf", "5", "-beam", "1e-40", "-wbeam", "1e-30", "-pbeam", "1e-40"]

    /// A decoder from an argv (cmd_ln_init is variadic and does not import).
    private static func makeDecoder(_ arguments: [String], _ files: PocketSphinxEngine.ModelFiles,
                                    _ options: RecognizerOptions) throws -> OpaquePointer {
        var cStrings: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let config = cStrings.withUnsafeMutableBufferPointer { argv in
            audiograph_ps_config(Int32(argv.count), argv.baseAddress)
        }
        guard let config else {
            throw options.node.error("pocketsphinx rejected its options: \(arguments.joined(separator: " "))",
                                     code: .unavailable)
        }
        defer { cmd_ln_free_r(config) }
        guard let decoder = ps_init(config) else {
            throw options.node.error("recognizer unavailable: pocketsphinx could not load the model (\(files.hmm))",
                                     code: .unavailable)
        }
        return decoder
    }

    deinit {
        // Stop a speculation still running, and let it wind down before its decoder goes (EagerFinalPass frees it).
        lastSpeculation?.cancel()
        eager?.drain()
        if inUtterance { ps_end_utt(liveDecoder) }
        if let streamingDecoder { ps_free(streamingDecoder) }
        ps_free(finalDecoder)
    }

    /// The decoder the streaming pass runs on.
    private var liveDecoder: OpaquePointer { streamingDecoder ?? finalDecoder }

    /// Whether this recognizer has the eager final pass (real-time runs with `finalPass` utterance).
    var hasEagerFinalPass: Bool { eager != nil }

    /// Speculations stopped part-way because a newer one (or the next utterance) made them useless.
    var speculationsStopped: Int { eager?.stoppedJobs.load(ordering: .relaxed) ?? 0 }

    /// For tests: waits until the eager pass has no job running or queued.
    func waitForEagerPass() {
        eager?.drain()
    }

    /// For tests: called on the eager queue before each piece of a speculation's search, with its number.
    func setBeforeEagerPiece(_ hook: (@Sendable (Int) -> Void)?) {
        eager?.beforePiece.withLock { $0 = hook }
    }

    func startUtterance() throws {
        utterance.removeAll(keepingCapacity: true)
        utteranceNumber += 1
        collecting = true
        // A speculation of the previous utterance is never used now: stop it (its decoder is touched only on
        // the eager queue).
        lastSpeculation?.cancel()
        speculation = nil
        if streaming {
            // An utterance left open (no endUtterance) is dropped.
            if inUtterance { try endLiveUtterance() }
            // A new stream per utterance: pocketsphinx counts segment frames from the start of the stream, and
            // word times are relative to the utterance (the node moves them onto the stream's clock).
            ps_start_stream(liveDecoder)
            guard ps_start_utt(liveDecoder) >= 0 else { throw node.error("pocketsphinx could not start an utterance", code: .nodeFailed) }
            inUtterance = true
        }
    }

    func process(_ samples: UnsafeBufferPointer<Float>) throws {
        let start = utterance.count
        utterance.reserveCapacity(start + samples.count)
        for sample in samples {
            utterance.append(Int16(max(-32768, min(32767, (sample * 32768).rounded()))))
        }
        guard streaming else { return }
        let result = utterance.withUnsafeBufferPointer {
            ps_process_raw(liveDecoder, $0.baseAddress! + start, samples.count, 0, 0)
        }
        guard result >= 0 else { throw node.error("pocketsphinx failed to process audio", code: .nodeFailed) }
    }

    func partialHypothesis() -> String {
        guard streaming, inUtterance else { return "" }
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(liveDecoder, &score) else { return "" }
        return String(cString: hyp)
    }

    /// Starts the final pass of `utterance[0..<frames]` on the eager decoder, in the background. Skipped when
    /// there is no eager pass (batch runs, streaming finals), when this one was already asked for, or when fewer
    /// frames were fed. An earlier speculation (a pause that was not the end) is cancelled: one still running
    /// stops at its next piece (then pocketsphinx still runs its second pass over what it searched, about 0.03 s
    /// per second of audio) and this one starts after it.
    func prepareFinal(speechEndsAfter frames: Int) {
        guard let eager, collecting, frames > 0, frames <= utterance.count else { return }
        if let speculation, speculation.frames == frames { return }
        lastSpeculation?.cancel()
        let job = Speculation(utterance: utteranceNumber, frames: frames)
        speculation = job
        lastSpeculation = job
        speculationsStarted += 1
        eager.decode(Array(utterance[0..<frames]), job)
    }

    func endUtterance(speechEndsAfter frames: Int) throws -> RecognitionResult {
        // The final pass need not decode the VAD's hangover: less work, and no words made up from the pause.
        if wholeUtteranceFinal && frames < utterance.count { utterance.removeLast(utterance.count - max(0, frames)) }
        // A speculation of exactly this audio that has begun is the final. One still waiting has done no work:
        // it is cancelled and the final decoder takes over at once, while a stale job ahead of it winds down.
        if let speculation, speculation.utterance == utteranceNumber, speculation.frames == frames,
           speculation.frames == utterance.count, !speculation.cancelIfWaiting(), let result = speculation.wait() {
            // The eager pass decoded exactly this audio: its result is the final (usually already there).
            try endLiveUtterance()
            self.speculation = nil
            collecting = false
            speculationsUsed += 1
            return result
        }
        return try endUtterance()
    }

    func endUtterance() throws -> RecognitionResult {
        // A speculation not taken for this final (other frames, a flush, a stop) is stopped.
        speculation?.cancel()
        speculation = nil
        collecting = false
        try endLiveUtterance()
        let decoder = wholeUtteranceFinal ? finalDecoder : liveDecoder
        if wholeUtteranceFinal {
            // In real-time runs every final starts from a fresh stream (as the eager decoder's does), so an eager
            // final equals this one; batch runs keep one stream, as pocketsphinx_batch does.
            if eager != nil { ps_start_stream(decoder) }
            guard Self.decodeWhole(utterance, on: decoder) else {
                throw node.error("pocketsphinx failed to decode the utterance", code: .nodeFailed)
            }
        }
        return Self.result(of: decoder)
    }

    private func endLiveUtterance() throws {
        guard inUtterance else { return }
        inUtterance = false
        guard ps_end_utt(liveDecoder) >= 0 else { throw node.error("pocketsphinx could not end the utterance", code: .nodeFailed) }
    }

    /// Decodes `samples` as one whole utterance, as pocketsphinx_batch does: cepstral mean normalization over the
    /// whole utterance instead of a running estimate, which recognizes first words far better.
    fileprivate static func decodeWhole(_ samples: [Int16], on decoder: OpaquePointer) -> Bool {
        guard ps_start_utt(decoder) >= 0 else { return false }
        let result = samples.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 1) }
        return ps_end_utt(decoder) >= 0 && result >= 0
    }

    /// The decoder's result for the utterance it last decoded: text, words with times and confidences.
    fileprivate static func result(of decoder: OpaquePointer) -> RecognitionResult {
        let logmath = ps_get_logmath(decoder)
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(decoder, &score) else { return RecognitionResult(text: "") }
        let text = String(cString: hyp)
        var words: [RecognizedWord] = []
        // Run the iterator to its end: that frees it.
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            var startFrame: Int32 = 0, endFrame: Int32 = 0
            ps_seg_frames(current, &startFrame, &endFrame)
            var acoustic: Int32 = 0, language: Int32 = 0, backoff: Int32 = 0
            let posterior = ps_seg_prob(current, &acoustic, &language, &backoff)
            if let raw = ps_seg_word(current), let word = Self.spokenWord(String(cString: raw)) {
                words.append(RecognizedWord(word: word, start: Double(startFrame) / 100, end: Double(endFrame + 1) / 100,
                                            confidence: min(1, max(0, logmath_exp(logmath, posterior)))))
            }
            segment = ps_seg_next(current)
        }
        // The utterance's confidence is the mean of its words' posteriors (the whole-hypothesis posterior from
        // ps_get_prob is the product, which shrinks with length and says little to a reader).
        let wordConfidences = words.compactMap(\.confidence)
        let confidence = wordConfidences.isEmpty
            ? min(1, max(0, logmath_exp(logmath, ps_get_prob(decoder))))
            : wordConfidences.reduce(0, +) / Double(wordConfidences.count)
        return RecognitionResult(text: text, confidence: confidence, words: words)
    }

    /// The word as spoken, or nil for silences and fillers (`<s>`, `<sil>`, `[NOISE]`); drops the alternate
    /// pronunciation mark (`read(2)` → `read`).
    static func spokenWord(_ raw: String) -> String? {
        if raw.hasPrefix("<") || raw.hasPrefix("[") || raw.hasPrefix("++") { return nil }
        if let paren = raw.firstIndex(of: "("), raw.hasSuffix(")") { return String(raw[..<paren]) }
        return raw
    }
}

/// One speculative final: the utterance and frame count it decodes, and its result once the background pass
/// has it. Shared between the node's thread and the eager queue.
final class Speculation: Sendable {
    private enum State { case waiting, running(stop: Bool), cancelled, finished(RecognitionResult?) }

    let utterance: Int
    let frames: Int
    private let state = Mutex(State.waiting)
    /// Left once: when the decode finished or stopped, or when the queue reached a cancelled job.
    private let done = DispatchGroup()

    init(utterance: Int, frames: Int) {
        self.utterance = utterance
        self.frames = frames
        done.enter()
    }

    /// On the eager queue, before decoding: false when the job was cancelled while it waited (the group is
    /// then left, and nothing is decoded).
    func begin() -> Bool {
        let started = state.withLock { state -> Bool in
            guard case .waiting = state else { return false }
            state = .running(stop: false)
            return true
        }
        if !started { done.leave() }
        return started
    }

    /// Cancels the job if the queue has not started it; true when it was cancelled (now or before).
    func cancelIfWaiting() -> Bool {
        state.withLock { state in
            switch state {
            case .waiting:
                state = .cancelled
                return true
            case .cancelled: return true
            case .running, .finished: return false
            }
        }
    }

    /// The job's result will not be used: one still waiting is never started, one running stops at its next
    /// piece (`stopRequested`).
    func cancel() {
        state.withLock { state in
            switch state {
            case .waiting: state = .cancelled
            case .running: state = .running(stop: true)
            case .cancelled, .finished: break
            }
        }
    }

    /// On the eager queue, while decoding: whether `cancel()` asked the job to stop.
    var stopRequested: Bool {
        state.withLock { state in
            if case .running(stop: true) = state { return true }
            return false
        }
    }

    /// Called once, on the eager queue, after `begin` returned true.
    func finish(_ result: RecognitionResult?) {
        state.withLock { $0 = .finished(result) }
        done.leave()
    }

    /// Waits for the result of a job that was started (nil if the decode failed or was stopped).
    func wait() -> RecognitionResult? {
        done.wait()
        return state.withLock { state in
            if case .finished(let result) = state { return result }
            return nil
        }
    }
}

/// The eager final pass: a decoder of its own (same arguments as the final decoder), used only by jobs on one
/// serial queue, one at a time.
///
/// A job decodes exactly what the full-utterance path does (same cepstra, same batch CMN, same search), but feeds
/// the search in pieces of `framesPerPiece` and stops between two pieces once its speculation is cancelled: a
/// decode started at a pause that was not the end gives way to the next one after a piece (and pocketsphinx's
/// second pass over what it had searched: there is no call to abandon an utterance) instead of making it
/// wait for a whole decode.
///
/// Confinement (hence `@unchecked Sendable`): `decoder` is touched only inside jobs on `queue`, and freed in
/// `deinit`, which runs after the last job (each job holds a reference) and after `drain()`.
private final class EagerFinalPass: @unchecked Sendable {
    private let decoder: OpaquePointer
    /// The model normalizes cepstra per utterance (every stock model does): jobs then compute the normalized
    /// cepstra themselves and can stop between pieces. Otherwise a job is one whole-utterance call.
    let piecewise: Bool
    private let queue = DispatchQueue(label: "audiograph.pocketsphinx.eager-final", qos: .userInitiated)
    /// Jobs that stopped because their speculation was cancelled while they ran.
    let stoppedJobs = Atomic<Int>(0)
    /// Called on the eager queue before each piece with the piece's number in its job (tests hold a job here).
    let beforePiece = Mutex<(@Sendable (Int) -> Void)?>(nil)
    /// 20 frames: 0.2 s of audio, a few tens of milliseconds of search.
    static let framesPerPiece: Int32 = 20

    init(decoder: OpaquePointer) {
        self.decoder = decoder
        piecewise = audiograph_ps_uses_batch_cmn(decoder) != 0
        if piecewise { audiograph_ps_disable_cmn(decoder) }
    }

    /// Decodes `samples` whole in the background, from a fresh stream (so the result does not depend on what
    /// this decoder decoded before), and finishes `job` with the result (nil when it failed or was stopped).
    func decode(_ samples: [Int16], _ job: Speculation) {
        queue.async { [self] in
            guard job.begin() else { return }
            ps_start_stream(decoder)
            let ok = piecewise ? decodeInPieces(samples, job) : PocketSphinxRecognizer.decodeWhole(samples, on: decoder)
            // A stopped job (part-way, or after its last piece) skips the lattice and posteriors nobody will read.
            if piecewise && job.stopRequested {
                stoppedJobs.add(1, ordering: .relaxed)
                job.finish(nil)
                return
            }
            job.finish(ok ? PocketSphinxRecognizer.result(of: decoder) : nil)
        }
    }

    /// The full-utterance decode, stoppable between pieces; false when it failed or `job` was cancelled.
    private func decodeInPieces(_ samples: [Int16], _ job: Speculation) -> Bool {
        var cepstra: UnsafeMutablePointer<UnsafeMutablePointer<mfcc_t>?>?
        let frames = samples.withUnsafeBufferPointer {
            audiograph_ps_utterance_cepstra(decoder, $0.baseAddress, $0.count, &cepstra)
        }
        defer { if let cepstra { audiograph_ps_free_cepstra(cepstra) } }
        guard frames >= 0, ps_start_utt(decoder) >= 0 else { return false }
        let hook = beforePiece.withLock { $0 }
        var first: Int32 = 0
        var piece = 0
        while first < frames {
            hook?(piece)
            piece += 1
            if job.stopRequested {
                ps_end_utt(decoder)
                return false
            }
            let count = min(Self.framesPerPiece, frames - first)
            guard audiograph_ps_process_cepstra(decoder, cepstra, first, count) >= 0 else {
                ps_end_utt(decoder)
                return false
            }
            first += count
        }
        return ps_end_utt(decoder) >= 0
    }

    /// Waits until no job runs or is queued.
    func drain() {
        queue.sync {}
    }

    deinit {
        ps_free(decoder)
    }
}
