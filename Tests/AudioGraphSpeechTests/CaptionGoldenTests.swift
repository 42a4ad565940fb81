import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphSpeech

// Golden files: the fixed event sequence of `CaptionTestSupport.goldenEvents` through `caption-sink`, as SRT,
// WebVTT and JSON. Regenerate with CAPTION_UPDATE_GOLDEN=1 and review the diff.
@Suite(.ownThreads) struct CaptionGoldenTests {
    @Test("caption-sink output matches the golden file", arguments: [
        ("srt", "captions.srt"), ("webvtt", "captions.vtt"), ("json", "transcript.json"),
    ])
    func golden(format: String, fileName: String) throws {
        try CaptionTestSupport.withScratchDirectory { folder in
            let actual = try CaptionTestSupport.render(format: format, fileName: fileName, in: folder)
            let expected = try CaptionTestSupport.golden(fileName, actual: actual)
            #expect(actual == expected)
            // Partials, stale revisions, duplicate finals and never-final partials stay out of files.
            for text in ["go fore", "DUPLICATE", "and then"] { #expect(!actual.contains(text)) }
        }
    }

    @Test("the JSON transcript holds the session, languages, words and confidences")
    func jsonContent() throws {
        try CaptionTestSupport.withScratchDirectory { folder in
            let text = try CaptionTestSupport.render(format: "json", fileName: "t.json", in: folder)
            let document = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            #expect(document["session"] as? String == "golden-session")
            #expect(document["language"] as? String == "en-US")
            let utterances = try #require(document["utterances"] as? [[String: Any]])
            #expect(utterances.map { $0["segment"] as? Int } == [1, 2, 3, 4])
            #expect(utterances.map { $0["language"] as? String } == ["en-US", "en-GB", "en-US", "en-US"])
            #expect(utterances[0]["text"] as? String == "go forward ten meters")
            #expect(utterances[0]["confidence"] as? Double == 0.81)
            #expect(utterances[2]["confidence"] is NSNull)
            let words = try #require(utterances[0]["words"] as? [[String: Any]])
            #expect(words.map { $0["word"] as? String } == ["go", "forward", "ten", "meters"])
            #expect(words[0]["start"] as? Double == 0.52)
            #expect(words[3]["end"] as? Double == 2.9)
            #expect((utterances[2]["words"] as? [Any])?.isEmpty == true)
        }
    }
}
