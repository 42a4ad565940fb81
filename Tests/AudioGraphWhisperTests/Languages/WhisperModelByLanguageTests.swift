/// Issue 16, languages, item "`setCaptionLanguage` during a session … may switch models when the current one cannot
/// do the new language": a recognizer without a `model` in its config decodes English with tiny.en and the other
/// languages with the multilingual base model, chosen by its language and switched between utterances when the
/// language changes, in file runs and in real time. A config's `model` is never switched. Real models.
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.serialized, .ownThreads) struct WhisperModelByLanguageTests {
    static let tinyEnglish = WhisperModelLocations.defaultModelPath()
    static let base = WhisperModelLocations.path(ofModel: WhisperModelLocations.multilingualModelName)

    @Test func theDefaultModelFollowsTheLanguage() {
        #expect(WhisperModelLocations.defaultModelName(forLanguage: "en-US") == "tiny.en")
        #expect(WhisperModelLocations.defaultModelName(forLanguage: "en-GB") == "tiny.en")
        #expect(WhisperModelLocations.defaultModelName(forLanguage: "de-DE") == "base")
        #expect(WhisperModelLocations.defaultModelName(forLanguage: "zh-TW") == "base")
        let byLanguage = WhisperSettings(["threads": 1], language: "de-DE")
        #expect(!byLanguage.modelGiven && byLanguage.model == Self.base)
        #expect(byLanguage.model(forLanguage: "en-GB") == Self.tinyEnglish)
        #expect(WhisperSettings([:]).model == Self.tinyEnglish)
        let given = WhisperSettings(["model": "/m/ggml-small.bin"], language: "de-DE")
        #expect(given.modelGiven && given.model == "/m/ggml-small.bin" && given.model(forLanguage: "en-US") == "/m/ggml-small.bin")
    }

    @Test func withoutAModelEveryLanguageIsDeclaredAndAGivenModelDecidesAlone() throws {
        _ = try WhisperScriptTests.baseModel()
        let byLanguage = WhisperEngine.capabilities(WhisperTestSupport.options(["threads": 1]))
        #expect(byLanguage.languages == WhisperLanguages.multilingual && byLanguage.languageHint == nil)
        let tiny = WhisperEngine.capabilities(WhisperTestSupport.options(["model": .string(Self.tinyEnglish)]))
        #expect(tiny.languages == WhisperLanguages.english)
        #expect(tiny.languageHint?.contains("or leave `model` out to have it follow the language") == true)
    }

    @Test(arguments: [false, true]) func switchingLanguageSwitchesTheModelBetweenUtterances(_ realtime: Bool) throws {
        _ = try WhisperScriptTests.baseModel()
        _ = try WhisperTestSupport.realModel()
        let options = WhisperTestSupport.options(["threads": 1, "packing": "off"], realtime: realtime)
        let recognizer = try WhisperRecognizer(options)
        #expect(recognizer.modelPath == Self.tinyEnglish)
        let started = ContinuousClock.now
        try recognizer.switchLanguage(to: "zh-TW")
        let switchTime = ContinuousClock.now - started
        #expect(recognizer.modelPath == Self.base && recognizer.modelSwitches == 1)
        let mandarin = try WhisperScriptTests.speech([("cmn-latn-pinyin", WhisperScriptTests.mandarin[1])])
        let traditional = try WhisperTestSupport.decode(recognizer, mandarin)
        print("model by language (realtime \(realtime)): tiny.en -> base in \(switchTime); zh-TW: \(traditional.text)")
        #expect(traditional.text.contains { WhisperScriptTests.traditionalOnly.contains($0) }, "\(traditional.text)")
        // Another language of the same model keeps it; English goes back to tiny.en.
        try recognizer.switchLanguage(to: "zh")
        #expect(recognizer.modelSwitches == 1)
        try recognizer.switchLanguage(to: "en-GB")
        #expect(recognizer.modelPath == Self.tinyEnglish && recognizer.modelSwitches == 2)
        let english = try WhisperTestSupport.decode(recognizer, try WhisperTestSupport.samples("forever_4"))
        #expect(WordErrorRate.normalize(english.text).contains("forever"), "\(english.text)")
    }

    @Test func aGivenModelIsNeverSwitched() throws {
        let recognizer = try WhisperRecognizer(WhisperTestSupport.options(["model": .string(try WhisperScriptTests.baseModel()),
                                                                          "threads": 1]))
        try recognizer.switchLanguage(to: "de-DE")
        try recognizer.switchLanguage(to: "en-US")
        #expect(recognizer.modelPath == Self.base && recognizer.modelSwitches == 0)
    }
}
