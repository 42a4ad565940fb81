import AudioGraphCore
import Foundation

/// The `whisper` engine: whisper.cpp (1.8.5, C API) with any ggml whisper model; tiny.en from the project's
/// models folder by default (`audiograph models install tiny.en`).
public enum WhisperEngine {
    /// The engine's own parameters (set on the recognizer node beside its common ones).
    ///
    /// `model` has no JSON default on purpose: the default file is found at run time (the models folder of the
    /// environment that runs), and a missing default model must fail with exit 69 and the install command, not as
    /// a missing input file.
    static let packing = Parameter.choice(
        "packing", default: WhisperSettings.Packing.auto,
        doc: "Pack consecutive utterances into shared 30 s windows and decode each window once "
            + "(auto and on: when the graph does not run in real time; off: a window per utterance). Default auto.")
    static let audioContext = Parameter.choice(
        "audioContext", default: WhisperSettings.AudioContext.auto,
        doc: "How much audio the encoder reads per final (whisper.cpp's audio_ctx): full, the whole 30 s window; "
            + "fit, the audio plus \(WhisperAudioContext.marginSeconds) s (a short utterance encodes several times faster); "
            + "auto (the default), fit in real time and full in file runs. Partials are always fitted.")
    static let noSpeechThreshold = Parameter.number(
        "noSpeechThreshold", range: 0...1, default: 0.6,
        doc: "An utterance whose no-speech probability is above this and whose average token "
            + "log-probability is below logProbThreshold is dropped as silence. Default 0.6 (OpenAI's transcribe).")
    static let logProbThreshold = Parameter.number("logProbThreshold", range: -20...0, default: -1,
                                                   doc: "See noSpeechThreshold. Default -1 (OpenAI's transcribe).")
    static let compressionRatioThreshold = Parameter.number(
        "compressionRatioThreshold", range: 1...100, default: 2.4,
        doc: "Text that compresses better than this (zlib, bytes in over bytes out) is a repetition "
            + "loop and is dropped. Default 2.4 (OpenAI's transcribe).")
    /// No JSON default: the default is the machine's active cores (`WhisperSettings.defaultThreads`).
    static let threads = Parameter.integer("threads", range: 1...64,
                                           doc: "Decoding threads; default: the number of active cores.")
    static let beamSize = Parameter.integer(
        "beamSize", range: 1...16,
        doc: "Beam search with this many beams for finals (1: greedy); absent (the default): greedy decoding, faster "
            + "and lighter. A beam search that loops is decoded again greedily.")
    static let temperatureIncrement = Parameter.number(
        "temperatureIncrement", range: 0...1, default: 0,
        doc: "Temperature fallback for finals: a decode that fails (average token log-probability under "
            + "logProbThreshold, or a repetition loop) is decoded again at a temperature this much higher, up to 1 "
            + "(whisper-cli's --temperature-inc, 0.2 there); 0 (the default): never. Partials never fall back.")
    static let leadInMs = Parameter.integer(
        "leadInMs", range: 0...1000, default: 0,
        doc: "Audio before the VAD's start of speech (and its pre-roll) given to the decoder with each utterance, "
            + "never reaching into the previous one's; default 0.")
    static let tailMs = Parameter.integer(
        "tailMs", range: 0...2000, default: 200,
        doc: "Audio after the VAD's end of speech given to the final pass (up to the VAD's hangover, 650 ms by "
            + "default, it delays no final); default 200.")
    static let initialPrompt = Parameter.string(
        "initialPrompt", doc: "Text given to the decoder before each utterance (names, spelling, style); default none.")

    static let contextWords = Parameter.integer(
        "contextWords", range: 0...100, default: 0,
        doc: "Words of the previous finals given to the decoder before each final, after any initialPrompt (as "
            + "whisper-cli carries text from one 30 s window to the next); 0 (the default): each utterance on its own.")

    public static let parameters: [ParameterSpec] = [
        ParameterSpec("model", .path(.model),
                      doc: "A whisper.cpp ggml model file; default: by caption language, ggml-tiny.en.bin for English "
                          + "and ggml-base.bin (multilingual) for the others, switched when the language changes, in the "
                          + "models folder ($AUDIOGRAPH_MODELS_DIR, else $XDG_DATA_HOME/audiograph/models, else "
                          + "~/.local/share/audiograph/models; `audiograph models install tiny.en` and `... install base` put them there)."),
        threads.spec,
        beamSize.spec,
        temperatureIncrement.spec,
        leadInMs.spec,
        tailMs.spec,
        packing.spec,
        audioContext.spec,
        noSpeechThreshold.spec,
        logProbThreshold.spec,
        compressionRatioThreshold.spec,
        initialPrompt.spec,
        contextWords.spec,
    ]

    /// The languages a model file can caption: en-US and en-GB for English-only (`.en`) models, every supported
    /// language for multilingual ones (English when the file cannot be read; `validate` then refuses it).
    public static func languages(ofModel path: String) -> [String] {
        guard case .success(let header) = WhisperModelHeader.read(path), header.isMultilingual else { return WhisperLanguages.english }
        return WhisperLanguages.multilingual
    }

    /// The languages a recognizer with these settings can caption, starting in `language`. A config's `model`
    /// decides alone. Without one the model follows the language (tiny.en for English, the multilingual model
    /// for the others, switched between utterances): every language once the multilingual model is installed,
    /// or when the session starts in a language other than English (`validate` then asks to install it).
    static func languages(_ settings: WhisperSettings, startingIn language: String) -> [String] {
        if settings.modelGiven { return languages(ofModel: settings.model) }
        let multilingual = WhisperModelLocations.path(ofModel: WhisperModelLocations.multilingualModelName)
        if !WhisperLanguages.english.contains(language) || languages(ofModel: multilingual) != WhisperLanguages.english {
            return WhisperLanguages.multilingual
        }
        return WhisperLanguages.english
    }

    /// What to do about a language the recognizer cannot caption: install the multilingual model (and, with an
    /// English-only `model` given, use it or leave `model` out).
    static func languageHint(_ settings: WhisperSettings, languages: [String]) -> String? {
        guard languages == WhisperLanguages.english else { return nil }
        let name = WhisperModelLocations.multilingualModelName
        if settings.modelGiven {
            return "\(settings.model) is an English-only model; for the other languages install the multilingual one "
                + "(`audiograph models install \(name)`) and give its file as the recognizer's model "
                + "(`audiograph models path \(name)`), or leave `model` out to have it follow the language"
        }
        return "for the other languages install the multilingual model (`audiograph models install \(name)`); "
            + "without a `model` the recognizer uses it for them"
    }

    public static func capabilities(_ options: RecognizerOptions) -> RecognizerCapabilities {
        let settings = WhisperSettings(options.parameters, language: options.language)
        let languages = languages(settings, startingIn: options.language)
        return RecognizerCapabilities(streaming: true, partialResults: true, wordTimings: true, languages: languages,
                                      sampleRate: WhisperPacker.sampleRate,
                                      languageHint: languageHint(settings, languages: languages),
                                      context: settings.utteranceContext)
    }

    /// Checks the model file before any audio flows: there, readable, a ggml whisper header.
    public static func validate(_ options: RecognizerOptions) throws {
        let settings = WhisperSettings(options.parameters, language: options.language)
        try validateModel(at: settings.model, install: installName(settings, options.language), node: options.node)
    }

    /// Whether `engine: "auto"` may pick whisper: the default model file is there.
    public static func defaultModelAvailable() -> Bool {
        if case .success = WhisperModelHeader.read(WhisperModelLocations.defaultModelPath()) { return true }
        return false
    }

    /// The model `audiograph models install` puts where a missing model of these settings was looked for: the
    /// language's default model, or tiny.en for a given file.
    static func installName(_ settings: WhisperSettings, _ language: String) -> String {
        settings.modelGiven ? WhisperModelLocations.defaultModelName : WhisperModelLocations.defaultModelName(forLanguage: language)
    }

    /// Loads the model file at `path`, or shares it with the recognizers that loaded it (`WhisperModelCache`);
    /// exit 69 naming `nodes.ID.model` when it cannot (`install` is the model the message tells to install).
    static func loadModel(at path: String, install: String, node: NodeConfiguration) throws -> WhisperModel {
        try validateModel(at: path, install: install, node: node)
        // Shared with every recognizer of this file in the process (a call's participants): loaded once.
        guard let model = WhisperModelCache.model(at: path) else {
            throw modelError(.notWhisper("whisper.cpp could not load it"), path, install: install, node: node)
        }
        return model
    }

    private static func validateModel(at path: String, install: String, node: NodeConfiguration) throws {
        if case .failure(let problem) = WhisperModelHeader.read(path) {
            throw modelError(problem, path, install: install, node: node)
        }
    }

    /// The error for an unusable model: exit 69, at `nodes.ID.model`, with the file and the install command.
    static func modelError(_ problem: WhisperModelHeader.Problem, _ path: String, install: String,
                           node: NodeConfiguration) -> GraphError {
        let what: String
        switch problem {
        case .missing: what = "no whisper model at \(path)"
        case .notAFile: what = "\(path) is not a file"
        case .unreadable: what = "cannot read \(path)"
        case .notWhisper(let reason): what = "\(path) is not a whisper.cpp ggml model (\(reason))"
        case .implausibleField(let field): what = "\(path) is a damaged or unknown whisper model (\(field)); it was not loaded"
        }
        let which = install == WhisperModelLocations.defaultModelName ? "the default model" : "the multilingual model"
        return node.error("whisper model unavailable: \(what); install \(which) with `audiograph models install \(install)`",
                          parameter: "model", code: .unavailable)
    }
}

extension WhisperEngine {
    /// The engine for the recognizer node's table.
    public static let engine = RecognizerEngine(
        name: "whisper",
        summary: "whisper.cpp with a ggml Whisper model (tiny.en from the models folder by default)",
        parameters: parameters,
        capabilities: capabilities,
        validate: validate,
        availableByDefault: defaultModelAvailable,
        make: { options in try WhisperRecognizer(options) })
}
