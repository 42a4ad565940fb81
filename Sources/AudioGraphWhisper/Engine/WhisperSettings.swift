import AudioGraphCore
import Foundation

/// The `whisper` engine's own parameters, read from `RecognizerOptions.parameters` through their declarations in
/// `WhisperEngine` (the node validated them and filled in defaults; a missing value falls back to the same one).
public struct WhisperSettings: Sendable, Equatable {
    /// When utterances are packed into shared 30 s windows.
    public enum Packing: String, Sendable, CaseIterable {
        /// Pack when the graph does not run in real time (the node then defers finals).
        case auto
        /// Pack whenever the node defers finals (today: the same as `auto`, since the node defers only when the
        /// graph does not run in real time).
        case on
        /// Decode every utterance in a window of its own.
        case off
    }

    /// How much audio whisper's encoder reads per final (whisper.cpp's `audio_ctx`); partials are always fitted.
    public enum AudioContext: String, Sendable, CaseIterable {
        /// `fit` when the graph runs in real time, `full` otherwise (file runs fill their windows by packing).
        case auto
        /// The model's whole window (30 s) whatever the audio's length, as whisper-cli decodes.
        case full
        /// The audio's length plus `WhisperAudioContext.margin`, up to the whole window: a short utterance is
        /// encoded in a fraction of the time.
        case fit
    }

    /// The ggml model file, absolute: the config's `model`, else the default model of the language
    /// (`WhisperModelLocations.defaultModelPath(forLanguage:)`).
    public var model: String
    /// Whether the config gave `model`; without it the model follows the caption language (`model(forLanguage:)`).
    public var modelGiven: Bool
    public var threads: Int
    /// The `beamSize` set in the config; nil: not set (greedy, `beams`).
    public var beamSize: Int?
    /// whisper.cpp's temperature fallback step for finals (`temperature_inc`); 0: none.
    public var temperatureIncrement: Double
    /// Milliseconds of audio before the VAD's start and after its end given to the decoder.
    public var leadInMs: Int
    public var tailMs: Int
    public var packing: Packing
    public var audioContext: AudioContext
    public var noSpeechThreshold: Double
    public var logProbThreshold: Double
    public var compressionRatioThreshold: Double
    public var initialPrompt: String?
    /// Words of earlier finals carried into the prompt (0: none).
    public var contextWords: Int

    /// whisper-like defaults (OpenAI's transcribe: no-speech 0.6, log-probability -1, compression ratio 2.4), as
    /// `WhisperEngine` declares them.
    public static let defaultNoSpeechThreshold = WhisperEngine.noSpeechThreshold.defaultValue
    public static let defaultLogProbThreshold = WhisperEngine.logProbThreshold.defaultValue
    public static let defaultCompressionRatioThreshold = WhisperEngine.compressionRatioThreshold.defaultValue

    /// The default number of decoding threads: the active cores.
    public static var defaultThreads: Int { max(1, min(64, ProcessInfo.processInfo.activeProcessorCount)) }

    /// The settings of `parameters` for captions in `language` (which picks the default model).
    public init(_ parameters: JSONObject, language: String = WhisperLanguages.english[0]) {
        let given = parameters["model"]?.stringValue
        modelGiven = given != nil
        model = given ?? WhisperModelLocations.defaultModelPath(forLanguage: language)
        threads = WhisperEngine.threads.value(in: parameters) ?? Self.defaultThreads
        beamSize = WhisperEngine.beamSize.value(in: parameters)
        temperatureIncrement = WhisperEngine.temperatureIncrement.value(in: parameters)
        leadInMs = WhisperEngine.leadInMs.value(in: parameters)
        tailMs = WhisperEngine.tailMs.value(in: parameters)
        packing = WhisperEngine.packing.value(in: parameters)
        audioContext = WhisperEngine.audioContext.value(in: parameters)
        noSpeechThreshold = WhisperEngine.noSpeechThreshold.value(in: parameters)
        logProbThreshold = WhisperEngine.logProbThreshold.value(in: parameters)
        compressionRatioThreshold = WhisperEngine.compressionRatioThreshold.value(in: parameters)
        initialPrompt = WhisperEngine.initialPrompt.value(in: parameters).flatMap { $0.isEmpty ? nil : $0 }
        contextWords = WhisperEngine.contextWords.value(in: parameters)
    }

    /// The model for captions in `language`: the config's `model` whatever the language, else that language's
    /// default model (tiny.en for English, the multilingual model for the others).
    public func model(forLanguage language: String) -> String {
        modelGiven ? model : WhisperModelLocations.defaultModelPath(forLanguage: language)
    }

    /// Whether the encoder window is fitted to each decode's audio, in a run that is `realtime` or not.
    public func fitsAudioContext(realtime: Bool) -> Bool {
        switch audioContext {
        case .auto: realtime
        case .full: false
        case .fit: true
        }
    }

    /// The beams of finals; nil: greedy (`beamSize` not set, or 1). Greedy stays the default: 5 beams with the
    /// temperature fallback and more audio around each utterance made fewer errors than whisper-cli on the unseen
    /// sets in all (966 against 1092) but not in each (each difference within the clips' noise), and 6 on the 14
    /// recorded clips (issue 15: at most 5). Their peak on the 60 s call, 311 MB while FFmpeg was linked, is 289 MB
    /// since it is loaded on first use (target < 300 MB); docs/speech.md has the figures.
    public var beams: Int? {
        guard let beamSize, beamSize > 1 else { return nil }
        return beamSize
    }

    /// The audio around each utterance this engine asks the recognizer node for (`leadInMs`, `tailMs`).
    public var utteranceContext: UtteranceContext {
        UtteranceContext(leadIn: Double(leadInMs) / 1000, tail: Double(tailMs) / 1000)
    }

    /// Whether utterances are packed when the node defers finals.
    public var packs: Bool { packing != .off }
}
