/// `contextWords`: the last words of earlier finals go into the next final's prompt, after the script and user
/// prompt; nothing is carried when the limit is 0.
import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct WhisperCarriedTextTests {
    @Test func keepsTheLastWordsAfterThePrompt() {
        var carried = WhisperCarriedText(limit: 4)
        #expect(carried.prompt(after: nil) == nil)
        #expect(carried.prompt(after: "Dashwood") == "Dashwood")
        carried.add("The weather is")
        carried.add("really  nice\ttoday.")
        #expect(carried.words == ["is", "really", "nice", "today."])
        #expect(carried.prompt(after: nil) == "is really nice today.")
        #expect(carried.prompt(after: "以下是普通话的句子，使用简体中文。") == "以下是普通话的句子，使用简体中文。 is really nice today.")
        carried.clear()
        #expect(carried.prompt(after: nil) == nil)
    }

    @Test func aLimitOfZeroCarriesNothing() {
        var carried = WhisperCarriedText(limit: 0)
        carried.add("Go forward ten meters.")
        #expect(carried.words.isEmpty)
        #expect(carried.prompt(after: "Dashwood") == "Dashwood")
    }
}

/// The recognizer carries its accepted finals' last words into the next final's prompt (real decodes).
@Suite(.ownThreads) struct WhisperContextDecodeTests {
    @Test(arguments: [false, true])
    func finalsCarryTheirLastWordsIntoTheNextPrompt(realtime: Bool) throws {
        let recognizer = try WhisperTestSupport.realRecognizer(["packing": "off", "contextWords": 5, "initialPrompt": "Dashwood"],
                                                               realtime: realtime)
        #expect(recognizer.nextFinalPrompt == "Dashwood")
        let first = try WhisperTestSupport.decode(recognizer, try WhisperTestSupport.samples("forever_4"))
        let words = first.text.split(separator: " ").suffix(5).joined(separator: " ")
        #expect(!words.isEmpty)
        #expect(recognizer.nextFinalPrompt == "Dashwood " + words, "\(first.text)")
        // The second final is decoded with that context and still right.
        let second = try WhisperTestSupport.decode(recognizer, try WhisperTestSupport.samples("librivox_0870"))
        let counts = WordErrorRate.errors(reference: WhisperTestSupport.references["librivox_0870"] ?? "?", hypothesis: second.text)
        #expect(counts.errors <= 1, "\(second.text)")
        #expect(recognizer.nextFinalPrompt?.hasSuffix(second.text.split(separator: " ").suffix(5).joined(separator: " ")) == true)
    }

    @Test func withoutContextWordsThePromptStaysTheUsersOwn() throws {
        let recognizer = try WhisperTestSupport.realRecognizer(["packing": "off", "initialPrompt": "Dashwood"])
        _ = try WhisperTestSupport.decode(recognizer, try WhisperTestSupport.samples("forever_4"))
        #expect(recognizer.nextFinalPrompt == "Dashwood")
    }
}
