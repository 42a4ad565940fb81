import AudioGraphPluginKit
import CSphinxKWS
import Foundation
import Synchronization

/// `keyword-spotter`: a recognizer engine that listens for a keyphrase instead of transcribing everything,
/// with pocketsphinx's keyphrase search (KWS) and Debian's en-US acoustic model.
///
/// A config selects it with the recognizer node's `engine` parameter; the phrase and the detection threshold
/// come from the node's `keyphrase` and `kwsThreshold` parameters (`hmm` and `dict` override the model):
///
/// ```json
/// "asr": { "type": "recognizer", "engine": "keyword-spotter", "keyphrase": "go forward", "kwsThreshold": 1e-20 }
/// ```
///
/// Several phrases may be given, separated by commas. An utterance's final text is what was detected in it
/// (the phrases in the order heard, e.g. "go forward"), or "" when nothing was, so the recognizer node emits
/// transcripts only for utterances that hold a keyphrase. Each detection is also a "word" with its times.
public enum KeywordSpotter {
    /// Where Debian's pocketsphinx-en-us puts the model.
    public static let modelFolder = "/usr/share/pocketsphinx/model/en-us"
    public static let defaultHMM = modelFolder + "/en-us"
    public static let defaultDictionary = modelFolder + "/cmudict-en-us.dict"
    /// pocketsphinx's usual starting point for phrases of two or three words; lower finds more (and more
    /// false alarms), higher finds fewer.
    public static let defaultThreshold = 1e-20

    /// The engine's own parameters, declared across the plugin ABI (version 2): the recognizer node checks them
    /// (and refuses any other engine's, such as pocketsphinx's `lm` or `grammar`) before the engine is asked.
    public static let parameters: [ParameterSpec] = [
        ParameterSpec("keyphrase", .string, required: true,
                      doc: "The phrase to listen for; several: separate them with commas. Every word must be in the dictionary."),
        ParameterSpec("kwsThreshold", .number(range: 1e-50...1), default: .number(defaultThreshold),
                      doc: "Detection threshold: lower finds more (and more false alarms), higher finds fewer."),
        ParameterSpec("hmm", .path(.inputFolder), doc: "Acoustic model folder (default: Debian's en-US)."),
        ParameterSpec("dict", .path(.input), doc: "Pronunciation dictionary (default: cmudict-en-us.dict)."),
        ParameterSpec("modelLanguage", .choice(SessionSettings.supportedLanguages), default: "en-US",
                      doc: "The language of the model given with hmm/dict."),
    ]

    public static let engine = RecognizerEngine(
        name: "keyword-spotter",
        summary: "Keyword spotting with pocketsphinx's keyphrase search (Debian's en-US model): the node's keyphrase "
            + "(comma-separated for several) and kwsThreshold; finals hold the phrases detected",
        parameters: parameters,
        capabilities: { options in
            RecognizerCapabilities(streaming: true, partialResults: true, wordTimings: true,
                                   languages: [options.parameters["modelLanguage"]?.stringValue ?? "en-US"],
                                   sampleRate: 16000)
        },
        validate: { options in _ = try Settings(options) },
        make: { options in try KeywordRecognizer(options) })

    /// What a decoder is made from, checked: the model files exist and every word of every phrase is in the
    /// pronunciation dictionary (pocketsphinx would otherwise fail to start, saying so only in its log).
    struct Settings {
        var hmm: String
        var dictionary: String
        /// The phrases to spot, words separated by one space, spelled as the dictionary has them.
        var phrases: [String]
        var threshold: Double

        init(_ options: RecognizerOptions) throws {
            let parameters = options.parameters
            guard let text = parameters["keyphrase"]?.stringValue else {
                throw options.node.error("the keyword-spotter engine needs \"keyphrase\": the phrase to listen for "
                    + "(several: separate them with commas)", parameter: "keyphrase")
            }
            let given = text.split(separator: ",").map { $0.split(whereSeparator: \.isWhitespace).map(String.init) }
                .filter { !$0.isEmpty }
            guard !given.isEmpty else {
                throw options.node.error("the keyphrase is empty; give the phrase to listen for", parameter: "keyphrase")
            }
            hmm = parameters["hmm"]?.stringValue ?? KeywordSpotter.defaultHMM
            dictionary = parameters["dict"]?.stringValue ?? KeywordSpotter.defaultDictionary
            threshold = parameters["kwsThreshold"]?.doubleValue ?? KeywordSpotter.defaultThreshold
            try Self.require(hmm, isDirectory: true, "hmm", options)
            try Self.require(dictionary, isDirectory: false, "dict", options)
            guard let words = PronunciationDictionary.words(dictionary) else {
                throw options.node.error("cannot read the pronunciation dictionary \(dictionary)", parameter: "dict",
                                         code: .unavailable)
            }
            let dictionary = self.dictionary
            phrases = try given.map { phrase in
                try phrase.map { word in
                    if words.contains(word) { return word }
                    if words.contains(word.lowercased()) { return word.lowercased() }
                    throw options.node.error("\"\(word)\" is not in the pronunciation dictionary \(dictionary); "
                        + "every word of a keyphrase must be", parameter: "keyphrase")
                }.joined(separator: " ")
            }
        }

        static func require(_ path: String, isDirectory: Bool, _ parameter: String, _ options: RecognizerOptions) throws {
            var directory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &directory)
            guard exists, directory.boolValue == isDirectory, FileManager.default.isReadableFile(atPath: path) else {
                let hint = path.hasPrefix(KeywordSpotter.modelFolder) ? " (install Debian's pocketsphinx-en-us)" : ""
                throw options.node.error("keyword spotter model unavailable: cannot read \(path)\(hint)",
                                         parameter: parameter, code: .unavailable)
            }
        }
    }
}

/// The words of a pocketsphinx pronunciation dictionary (`word PH O N E S`, alternates as `word(2)`), read once
/// per file.
enum PronunciationDictionary {
    private static let cache = Mutex<[String: Set<String>]>([:])

    static func words(_ path: String) -> Set<String>? {
        if let words = cache.withLock({ $0[path] }) { return words }
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        var words = Set<String>()
        words.reserveCapacity(data.count / 24)
        data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            var index = 0
            while index < bytes.count {
                let start = index
                // The word ends at the first blank or "(" (an alternate pronunciation's mark).
                while index < bytes.count, bytes[index] != 0x20, bytes[index] != 0x09, bytes[index] != 0x0A,
                      bytes[index] != 0x28 {
                    index += 1
                }
                if index > start {
                    words.insert(String(decoding: UnsafeRawBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self))
                }
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
                index += 1
            }
        }
        cache.withLock { $0[path] = words }
        return words
    }
}

/// One keyphrase decoder. Confined to one thread at a time (the recognizer node's worker).
final class KeywordRecognizer: SpeechRecognizer {
    let capabilities: RecognizerCapabilities
    private let decoder: OpaquePointer
    private let logmath: OpaquePointer
    private let node: NodeConfiguration
    private var inUtterance = false
    private var samples: [Int16] = []

    /// sphinxbase's log target is process-wide (and shared with the host's own pocketsphinx engine).
    private static let logLock = Mutex<Void>(())

    init(_ options: RecognizerOptions) throws {
        node = options.node
        capabilities = KeywordSpotter.engine.capabilities(options)
        let settings = try KeywordSpotter.Settings(options)
        let threshold = String(format: "%g", settings.threshold)
        var arguments = ["-hmm", settings.hmm, "-dict", settings.dictionary, "-remove_silence", "no"]
        // One phrase goes on the command line; several go in a keyphrase file, one "phrase /threshold/" a line.
        var phraseFile: URL?
        defer { phraseFile.map { try? FileManager.default.removeItem(at: $0) } }
        if settings.phrases.count == 1 {
            arguments += ["-keyphrase", settings.phrases[0], "-kws_threshold", threshold]
        } else {
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("keyword-spotter-\(UUID().uuidString).kws")
            let list = settings.phrases.map { "\($0) /\(threshold)/\n" }.joined()
            do {
                try list.write(to: file, atomically: true, encoding: .utf8)
            } catch {
                throw options.node.error("cannot write the keyphrase list \(file.path): \(error)", parameter: "keyphrase",
                                         code: .cannotCreateOutput)
            }
            phraseFile = file
            arguments += ["-kws", file.path]
        }
        // No `-logfn`: ps_init would fclose the process-wide log FILE, racing the host's decoders; the log is
        // silenced process-wide instead.
        decoder = try Self.logLock.withLock { _ in
            kws_plugin_quiet(options.verbose ? 0 : 1)
            return try Self.makeDecoder(arguments, settings, options)
        }
        logmath = ps_get_logmath(decoder)
    }

    /// A decoder from an argv (cmd_ln_init is variadic and does not import).
    private static func makeDecoder(_ arguments: [String], _ settings: KeywordSpotter.Settings,
                                    _ options: RecognizerOptions) throws -> OpaquePointer {
        var cStrings: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        defer { cStrings.forEach { free($0) } }
        let config = cStrings.withUnsafeMutableBufferPointer { argv in
            kws_plugin_config(Int32(argv.count), argv.baseAddress)
        }
        guard let config else {
            throw options.node.error("pocketsphinx rejected its options: \(arguments.joined(separator: " "))",
                                     code: .unavailable)
        }
        defer { cmd_ln_free_r(config) }
        guard let decoder = ps_init(config) else {
            throw options.node.error("keyword spotter unavailable: pocketsphinx could not load the model (\(settings.hmm))",
                                     code: .unavailable)
        }
        return decoder
    }

    deinit {
        if inUtterance { ps_end_utt(decoder) }
        ps_free(decoder)
    }

    func startUtterance() throws {
        // A new stream per utterance: pocketsphinx gives segment frames from the start of the stream, so without
        // it a detection's times would count every earlier utterance's frames too.
        guard ps_start_stream(decoder) >= 0, ps_start_utt(decoder) >= 0 else {
            throw node.error("pocketsphinx could not start an utterance", code: .nodeFailed)
        }
        inUtterance = true
    }

    func process(_ input: UnsafeBufferPointer<Float>) throws {
        guard inUtterance, !input.isEmpty else { return }
        samples.removeAll(keepingCapacity: true)
        samples.reserveCapacity(input.count)
        for sample in input {
            samples.append(Int16(max(-32768, min(32767, (sample * 32768).rounded()))))
        }
        let result = samples.withUnsafeBufferPointer { ps_process_raw(decoder, $0.baseAddress, $0.count, 0, 0) }
        guard result >= 0 else { throw node.error("pocketsphinx failed to process audio", code: .nodeFailed) }
    }

    /// The phrases detected so far in this utterance.
    func partialHypothesis() -> String {
        guard inUtterance else { return "" }
        var score: Int32 = 0
        return ps_get_hyp(decoder, &score).map { Self.phrases(String(cString: $0)) } ?? ""
    }

    func endUtterance() throws -> RecognitionResult {
        guard inUtterance else { return RecognitionResult(text: "") }
        inUtterance = false
        guard ps_end_utt(decoder) >= 0 else {
            throw node.error("pocketsphinx could not end the utterance", code: .nodeFailed)
        }
        var score: Int32 = 0
        guard let hyp = ps_get_hyp(decoder, &score) else { return RecognitionResult(text: "") }
        let text = Self.phrases(String(cString: hyp))
        // Each detection, with its times (100 frames a second from the utterance's start) and posterior. Run the
        // iterator to its end: that frees it.
        var detections: [RecognizedWord] = []
        var segment = ps_seg_iter(decoder)
        while let current = segment {
            var startFrame: Int32 = 0, endFrame: Int32 = 0
            ps_seg_frames(current, &startFrame, &endFrame)
            var acoustic: Int32 = 0, language: Int32 = 0, backoff: Int32 = 0
            let posterior = ps_seg_prob(current, &acoustic, &language, &backoff)
            if let word = ps_seg_word(current) {
                detections.append(RecognizedWord(word: Self.phrases(String(cString: word)), start: Double(startFrame) / 100,
                                                 end: Double(endFrame + 1) / 100,
                                                 confidence: min(1, max(0, logmath_exp(logmath, posterior)))))
            }
            segment = ps_seg_next(current)
        }
        let confidences = detections.compactMap(\.confidence)
        return RecognitionResult(text: text,
                                 confidence: confidences.isEmpty ? nil : confidences.reduce(0, +) / Double(confidences.count),
                                 words: detections)
    }
}

extension KeywordRecognizer {
    /// pocketsphinx's keyphrase hypothesis ends each phrase with a space: "go forward " → "go forward".
    static func phrases(_ hypothesis: String) -> String {
        hypothesis.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }
}

@_cdecl("audiograph_plugin_entry")
public func audiographPluginEntry(_ host: UnsafeRawPointer?) -> UnsafeRawPointer? {
    AudioGraphPlugin.export(name: "keyword-spotter", version: "1.0.0", engines: [KeywordSpotter.engine])
}
