/// Issue 16, languages, item "Right script": with the real multilingual base model, the same Mandarin speech comes
/// out in Simplified Hanzi for zh and in Traditional for zh-TW, and Hindi in Devanagari (not Urdu's Arabic script),
/// through the script prompts of `WhisperLanguages`; and a recognizer switched to another language decodes in it.
import AudioGraphCore
import AudioGraphIO
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.serialized, .ownThreads) struct WhisperScriptTests {
    /// 我想买一杯咖啡 / 這個東西多少錢 / 我們明天再見 read by espeak-ng's cmn-latn-pinyin voice.
    static let mandarin = ["wo3 xiang3 mai3 yi4 bei1 ka1 fei1", "zhe4 ge5 dong1 xi1 duo1 shao3 qian2",
                           "wo3 men5 ming2 tian1 zai4 jian4"]
    /// Characters of those sentences written differently in the two scripts.
    static let simplifiedOnly: Set<Character> = ["买", "这", "个", "东", "钱", "们", "见"]
    static let traditionalOnly: Set<Character> = ["買", "這", "個", "東", "錢", "們", "見"]

    static func baseModel() throws -> String {
        let path = WhisperModelLocations.path(ofModel: WhisperModelLocations.multilingualModelName)
        guard case .success = WhisperModelHeader.read(path) else {
            Issue.record("the multilingual base model is missing at \(path): run `audiograph models install base`")
            throw WhisperTestSupport.MissingModel()
        }
        return path
    }

    static func recognizer(_ language: String) throws -> WhisperRecognizer {
        try WhisperRecognizer(WhisperTestSupport.options(["model": .string(try baseModel()), "threads": 1, "packing": "off"],
                                                         language: language))
    }

    static func speech(_ sentences: [(voice: String, text: String)]) throws -> [Float] {
        let folder = try TemporaryFolder(prefix: "scripts")
        let path = folder.path("speech.wav")
        try SpokenSentences.write(sentences, to: path, gapSeconds: 0.6)
        let reader = try SoundFileReader(path: path)
        var samples = [Float](repeating: 0, count: Int(reader.frameCount ?? 0))
        let frames = try samples.withUnsafeMutableBufferPointer { try reader.read(into: $0, maxFrames: $0.count) }
        return Array(samples.prefix(frames))
    }

    @Test func mandarinComesOutSimplifiedForZhAndTraditionalForZhTW() throws {
        let samples = try Self.speech(Self.mandarin.map { ("cmn-latn-pinyin", $0) })
        let simplified = try WhisperTestSupport.decode(try Self.recognizer("zh"), samples).text
        let traditional = try WhisperTestSupport.decode(try Self.recognizer("zh-TW"), samples).text
        print("zh: \(simplified)\nzh-TW: \(traditional)")
        #expect(simplified.contains { Self.simplifiedOnly.contains($0) }, "zh: \(simplified)")
        #expect(!simplified.contains { Self.traditionalOnly.contains($0) }, "zh: \(simplified)")
        #expect(traditional.contains { Self.traditionalOnly.contains($0) }, "zh-TW: \(traditional)")
        #expect(!traditional.contains { Self.simplifiedOnly.contains($0) }, "zh-TW: \(traditional)")
    }

    /// Packed as a file run packs them (three utterances, one window), each Mandarin sentence goes to its own
    /// utterance. Words were merged across whisper's segments, and Hanzi have no spaces between them, so the whole
    /// window was one "word" and went to one utterance, the other two empty.
    @Test func packedMandarinSentencesKeepTheirOwnUtterances() throws {
        let recognizer = try WhisperRecognizer(WhisperTestSupport.options(["model": .string(try Self.baseModel()), "threads": 1],
                                                                          language: "zh-TW"))
        var results: [RecognitionResult] = []
        for sentence in Self.mandarin {
            let samples = try Self.speech([("cmn-latn-pinyin", sentence)])
            try recognizer.startUtterance()
            try samples.withUnsafeBufferPointer { try recognizer.process($0) }
            results += try recognizer.endUtteranceDeferring(speechEndsAfter: nil)
        }
        results += try recognizer.flushDeferredResults()
        print("zh-TW packed: \(results.map(\.text))")
        #expect(recognizer.finalDecodes == 1)
        #expect(results.count == 3)
        let expected = ["咖啡", "東西", "明天"]
        for (result, words) in zip(results, expected) {
            #expect(result.text.contains(words), "\(results.map(\.text))")
        }
        // Their captions break between characters: lines of 6 Hanzi (12 columns), no spaces added.
        var builder = CueBuilder(rules: CueRules(maxLineLength: 12, maxLines: 2))
        for (index, result) in results.enumerated() {
            let words = result.words.map { TranscriptUpdate.Word(word: $0.word, start: $0.start, end: $0.end) }
            let cues = builder.cues(for: TranscriptUpdate(segment: index, revision: 1, isFinal: true, start: 0, end: 0,
                                                          text: result.text, words: words))
            let lines = cues.flatMap(\.lines)
            #expect(lines.joined() == result.text.filter { $0 != " " }, "\(lines)")
            #expect(lines.allSatisfy { TerminalWidth.columns($0) <= 12 && !$0.contains(" ") }, "\(lines)")
        }
    }

    @Test func hindiComesOutInDevanagari() throws {
        let samples = try Self.speech([("hi", "आज मौसम बहुत अच्छा है।"), ("hi", "मुझे एक गिलास पानी चाहिए।")])
        let text = try WhisperTestSupport.decode(try Self.recognizer("hi-IN"), samples).text
        print("hi-IN: \(text)")
        let letters = text.unicodeScalars.filter { $0.properties.isAlphabetic }
        let devanagari = letters.filter { (0x0900...0x097F).contains($0.value) }
        let arabic = letters.filter { (0x0600...0x06FF).contains($0.value) || (0xFB50...0xFEFF).contains($0.value) }
        #expect(!letters.isEmpty && arabic.isEmpty && devanagari.count * 10 >= letters.count * 9, "hi-IN: \(text)")
    }

    @Test func aSwitchedRecognizerDecodesInTheNewLanguage() throws {
        let recognizer = try Self.recognizer("en-US")
        try recognizer.switchLanguage(to: "zh-TW")
        #expect(recognizer.language == "zh-TW")
        let text = try WhisperTestSupport.decode(recognizer, try Self.speech([("cmn-latn-pinyin", Self.mandarin[1])])).text
        #expect(text.contains { Self.traditionalOnly.contains($0) }, "zh-TW after the switch: \(text)")
        #expect(throws: GraphError.self) { try recognizer.switchLanguage(to: "xx-YY") }
        let english = try WhisperRecognizer(WhisperTestSupport.options(["model": .string(WhisperTestSupport.standInModel)]))
        #expect(throws: GraphError.self) { try english.switchLanguage(to: "de-DE") }
        #expect(english.language == "en-US")
    }
}
