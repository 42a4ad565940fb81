/// A recognizer that can change the language it decodes while it runs (`setLanguage` during a session). The
/// recognizer node calls `switchLanguage(to:)` between utterances only, with a code of
/// `capabilities.languages`, after flushing every held result: the next utterance is decoded in the new language.
/// Engines without it keep decoding their first language (their results are still tagged with the new code).
public protocol LanguageSwitching: SpeechRecognizer {
    func switchLanguage(to code: String) throws
}
