import CWhisper
import Foundation
import Synchronization

/// One decoded token: its text bytes (a BPE piece, maybe part of a UTF-8 character), times in seconds from the
/// start of the decoded audio (token timestamps), and probabilities.
public struct WhisperToken: Sendable, Equatable {
    public var bytes: [UInt8]
    public var start: Double
    public var end: Double
    public var probability: Double
    public var logProbability: Double
    /// End of text, timestamps, language and task tokens.
    public var special: Bool

    public init(_ text: String, start: Double, end: Double, probability: Double = 1, special: Bool = false) {
        self.init(bytes: Array(text.utf8), start: start, end: end, probability: probability,
                  logProbability: log(max(probability, 1e-12)), special: special)
    }

    public init(bytes: [UInt8], start: Double, end: Double, probability: Double, logProbability: Double, special: Bool) {
        self.bytes = bytes
        self.start = start
        self.end = end
        self.probability = probability
        self.logProbability = logProbability
        self.special = special
    }
}

/// What one `whisper_full` call gave: its segments' tokens, and the no-speech probability of its (first) window.
public struct WhisperWindow: Sendable, Equatable {
    public var segments: [[WhisperToken]]
    public var noSpeechProbability: Double

    public init(segments: [[WhisperToken]], noSpeechProbability: Double) {
        self.segments = segments
        self.noSpeechProbability = noSpeechProbability
    }

    /// The decoded words, none spanning two segments (`WhisperWords.merge(segments:)`).
    public var words: [WhisperWord] { WhisperWords.merge(segments: segments) }
}

/// Asks a running decode to stop (whisper.cpp checks it before each graph computation).
final class AbortFlag: Sendable {
    private let flag = Atomic(false)
    func abort() { flag.store(true, ordering: .relaxed) }
    var isAborted: Bool { flag.load(ordering: .relaxed) }
}

/// How `whisper_full` is called (the traps in WHISPER.md: temperature fallback only where asked; no text context
/// across calls; `audio_ctx` either whisper's own or fitted with a margin, `WhisperAudioContext`).
struct WhisperDecodeOptions: Sendable {
    var threads: Int
    var beamSize: Int?
    /// whisper.cpp's temperature fallback step (`temperature_inc`); 0: none.
    var temperatureIncrement: Double = 0
    /// whisper's language code ("en").
    var language: String
    var initialPrompt: String?
    var noSpeechThreshold: Double
    var logProbThreshold: Double
    /// A beam search whose text compresses better than this (a repetition loop, which the hallucination rules
    /// would drop whole) is decoded again greedily, as whisper falls back when a decode fails; nil: never.
    var compressionRatioThreshold: Double? = nil
    /// Token timestamps for word times (finals); partials skip them.
    var tokenTimestamps = true
    /// Encode only as much as the audio needs (`WhisperAudioContext`) instead of the whole 30 s window.
    var fitsAudioContext = false
}

extension WhisperState {
    /// Decodes 16 kHz mono samples whole; nil when whisper.cpp failed or `abort` stopped it.
    func decode(_ samples: UnsafeBufferPointer<Float>, _ options: WhisperDecodeOptions, abort: AbortFlag? = nil) -> WhisperWindow? {
        var params = whisper_full_default_params(options.beamSize == nil ? WHISPER_SAMPLING_GREEDY : WHISPER_SAMPLING_BEAM_SEARCH)
        params.n_threads = Int32(options.threads)
        if let beamSize = options.beamSize { params.beam_search.beam_size = Int32(beamSize) }
        params.no_context = true
        params.no_timestamps = false
        params.single_segment = false
        params.token_timestamps = options.tokenTimestamps
        params.print_special = false
        params.print_progress = false
        params.print_realtime = false
        params.print_timestamps = false
        params.detect_language = false
        params.suppress_blank = true
        params.suppress_nst = true
        params.temperature = 0
        params.temperature_inc = Float(options.temperatureIncrement)
        params.no_speech_thold = Float(options.noSpeechThreshold)
        params.logprob_thold = Float(options.logProbThreshold)
        params.audio_ctx = options.fitsAudioContext
            ? Int32(WhisperAudioContext.frames(forSamples: samples.count, window: model.audioContext)) : 0
        if let abort {
            params.abort_callback = { data in
                guard let data else { return false }
                return Unmanaged<AbortFlag>.fromOpaque(data).takeUnretainedValue().isAborted
            }
            params.abort_callback_user_data = Unmanaged.passUnretained(abort).toOpaque()
        }
        let status: Int32 = withExtendedLifetime(abort) {
            options.language.withCString { language in
                params.language = language
                return withOptionalCString(options.initialPrompt) { prompt in
                    params.initial_prompt = prompt
                    return whisper_full_with_state(model.context, pointer, params, samples.baseAddress, Int32(samples.count))
                }
            }
        }
        guard status == 0, abort?.isAborted != true else { return nil }
        let decoded = window()
        if options.beamSize != nil, let threshold = options.compressionRatioThreshold,
           WhisperHallucinationFilter.compressionRatio(WhisperWords.text(of: decoded.words)) > threshold {
            var greedy = options
            greedy.beamSize = nil
            return decode(samples, greedy, abort: abort)
        }
        return decoded
    }

    /// The results of the last decode.
    private func window() -> WhisperWindow {
        let count = whisper_full_n_segments_from_state(pointer)
        var segments: [[WhisperToken]] = []
        var noSpeech = 0.0
        for segment in 0..<count {
            if segment == 0 { noSpeech = Double(whisper_full_get_segment_no_speech_prob_from_state(pointer, segment)) }
            var tokens: [WhisperToken] = []
            for index in 0..<whisper_full_n_tokens_from_state(pointer, segment) {
                let data = whisper_full_get_token_data_from_state(pointer, segment, index)
                let text = whisper_full_get_token_text_from_state(model.context, pointer, segment, index)
                let bytes = text.map { Array(UnsafeBufferPointer(start: UnsafeRawPointer($0).assumingMemoryBound(to: UInt8.self),
                                                                 count: strlen($0))) } ?? []
                tokens.append(WhisperToken(bytes: bytes, start: Double(data.t0) / 100, end: Double(data.t1) / 100,
                                           probability: Double(data.p), logProbability: Double(data.plog),
                                           special: data.id >= model.endOfText))
            }
            segments.append(tokens)
        }
        return WhisperWindow(segments: segments, noSpeechProbability: noSpeech)
    }
}

private func withOptionalCString<R>(_ string: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let string else { return body(nil) }
    return string.withCString { body($0) }
}
