/// Issue 16, languages, item "Each caption code maps to a whisper language; the engine declares the codes its loaded
/// model can do; a code it cannot do stays a config error listing what it can": the 19 caption codes map to
/// languages whisper.cpp knows, an English-only model declares en-US and en-GB (and the refusal names the JSON path,
/// the languages and `audiograph models install base`), a multilingual model declares all 19.
import AudioGraphCore
import AudioGraphSpeech
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct WhisperLanguageMappingTests {
    static let multilingualStandIn = WhisperTestSupport.fixtures.appendingPathComponent("for-tests-ggml-base.bin").path

    @Test func everyCaptionCodeMapsToALanguageWhisperKnows() {
        #expect(SessionSettings.supportedLanguages.count == 19)
        for code in SessionSettings.supportedLanguages {
            let whisper = WhisperLanguages.whisperCode(for: code)
            #expect(whisper.map(WhisperLanguages.whisperKnows) == true, "\(code) -> \(whisper ?? "nil")")
        }
        #expect(WhisperLanguages.whisperCode(for: "en-US") == "en" && WhisperLanguages.whisperCode(for: "en-GB") == "en")
        #expect(WhisperLanguages.whisperCode(for: "zh") == "zh" && WhisperLanguages.whisperCode(for: "zh-TW") == "zh")
        #expect(WhisperLanguages.whisperCode(for: "hi-IN") == "hi" && WhisperLanguages.whisperCode(for: "pt-PT") == "pt")
        #expect(WhisperLanguages.whisperCode(for: "xx-YY") == nil)
        #expect(!WhisperLanguages.whisperKnows("xx"))
    }

    @Test func modelsDeclareTheLanguagesTheyCanDo() {
        #expect(WhisperEngine.languages(ofModel: WhisperTestSupport.standInModel) == ["en-US", "en-GB"])
        #expect(WhisperEngine.languages(ofModel: Self.multilingualStandIn) == SessionSettings.supportedLanguages)
        let english = WhisperEngine.capabilities(WhisperTestSupport.options(["model": .string(WhisperTestSupport.standInModel)]))
        #expect(english.languageHint?.contains("audiograph models install base") == true)
        let multilingual = WhisperEngine.capabilities(WhisperTestSupport.options(["model": .string(Self.multilingualStandIn)]))
        #expect(multilingual.languages.count == 19 && multilingual.languageHint == nil)
    }

    private func recognizer(_ values: JSONObject, session: SessionSettings = SessionSettings()) throws -> RecognizerNode {
        let validated = try ParameterValidation.validate(values, against: RecognizerNode.descriptor, at: .root / "nodes" / "asr")
        return try RecognizerNode(configuration: NodeConfiguration(id: "asr", type: "recognizer", values: validated, session: session))
    }

    @Test func anEnglishModelRefusesOtherLanguagesNamingThePathAndTheInstall() throws {
        let model = WhisperTestSupport.standInModel
        #expect(throws: GraphError(.invalidConfig, at: "nodes.asr.language",
                                   "recognizer engine \"whisper\" cannot do de-DE; it has en-US, en-GB; \(model) is an "
                                   + "English-only model; for the other languages install the multilingual one "
                                   + "(`audiograph models install base`) and give its file as the recognizer's model "
                                   + "(`audiograph models path base`), or leave `model` out to have it follow the language",
                                   node: "asr")) {
            try recognizer(["engine": "whisper", "model": .string(model), "language": "de-DE"])
        }
        let session = SessionSettings(captionLanguage: "zh-TW")
        do {
            _ = try recognizer(["engine": "whisper", "model": .string(model)], session: session)
            Issue.record("zh-TW was accepted by an English-only model")
        } catch let error as GraphError {
            #expect(error.code == .invalidConfig && error.description.contains("session.captionLanguage"), "\(error)")
        }
        #expect(try recognizer(["engine": "whisper", "model": .string(model), "language": "en-GB"]).language == "en-GB")
    }

    @Test func aMultilingualModelTakesEveryCaptionCode() throws {
        for code in SessionSettings.supportedLanguages {
            let node = try recognizer(["engine": "whisper", "model": .string(Self.multilingualStandIn), "language": .string(code)])
            #expect(node.language == code && node.supportedLanguages.count == 19)
        }
    }
}
