import AudioGraphCore
import CWhisper

/// How the project's caption language codes (`SessionSettings.supportedLanguages`) reach whisper: the whisper
/// language each one decodes as, and the initial prompt that puts the text in the code's own script.
public enum WhisperLanguages {
    /// Caption code → whisper language code (whisper.cpp's `whisper_lang_id` knows every value).
    public static let whisperCodes: [String: String] = [
        "en-US": "en", "en-GB": "en", "de-DE": "de", "es-ES": "es", "fr-FR": "fr", "hi-IN": "hi", "hu-HU": "hu",
        "it-IT": "it", "ja-JP": "ja", "ko-KR": "ko", "lt-LT": "lt", "ms-MY": "ms", "nl-NL": "nl", "pt-PT": "pt",
        "ru-RU": "ru", "sv-SE": "sv", "tr-TR": "tr", "zh": "zh", "zh-TW": "zh",
    ]

    /// Whether whisper.cpp knows a whisper language code (`whisper_lang_id`).
    public static func whisperKnows(_ code: String) -> Bool { whisper_lang_id(code) >= 0 }

    /// Caption languages of an English-only (`.en`) model.
    public static let english = ["en-US", "en-GB"]

    /// Caption languages of a multilingual model: every supported code with a whisper language.
    public static var multilingual: [String] { SessionSettings.supportedLanguages.filter { whisperCodes[$0] != nil } }

    /// whisper's language for a caption code ("en-GB" → "en", "zh-TW" → "zh"); nil for a code it has no language for.
    public static func whisperCode(for caption: String) -> String? { whisperCodes[caption] }

    /// A prompt in the script a caption code is written in, for codes whose whisper language has more than one
    /// (zh: Simplified or Traditional Hanzi; hi: whisper writes Hindi speech in Urdu script too). whisper continues
    /// in the script of its prompt.
    public static let scriptPrompts: [String: String] = [
        "zh": "以下是普通话的句子，使用简体中文。",
        "zh-TW": "以下是國語的句子，使用繁體中文。",
        "hi-IN": "यह हिंदी में बोला गया वाक्य है।",
    ]

    /// The initial prompt for a caption code: its script prompt (if any) before the user's own prompt.
    public static func initialPrompt(for caption: String, userPrompt: String?) -> String? {
        let parts = [scriptPrompts[caption], userPrompt].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }
}
