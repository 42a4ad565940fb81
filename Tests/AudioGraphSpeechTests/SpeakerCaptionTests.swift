import AudioGraphCore
@testable import AudioGraphSpeech
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 35, item 4: who said it, in every caption format. A call's finals carry the participant as `speaker`:
/// WebVTT cues are voice spans (`<v Alice>…</v>`), SRT and text lines start with `Alice: `, the JSON transcript
/// has `speaker`; each speaker's segments count from 1, so two speakers' segment 1 are two utterances. A
/// pipeline without speakers writes what it wrote before (the golden tests hold that).
@Suite struct SpeakerCaptionTests {
    static func final(_ speaker: String?, _ segment: Int, _ text: String, at start: Double) -> Event {
        let words = CaptionTestSupport.words(text, from: start, step: 0.4, length: 0.3)
        return CaptionTestSupport.transcript(TranscriptUpdate(segment: segment, revision: 1, isFinal: true, start: start,
                                                              end: words.last!.end, text: text, words: words,
                                                              speaker: speaker))
    }

    static func written(_ format: String) throws -> String {
        try CaptionTestSupport.withScratchDirectory { folder in
            let path = folder + "/call.\(format)"
            let sink = try NodeHarness(type: CaptionSinkNode.self, id: "cc",
                                       parameters: CaptionTestSupport.parameters(format: format, path: path), input: nil,
                                       session: CaptionTestSupport.session)
            try sink.push(final("Alice", 1, "good morning everyone", at: 0.5))
            try sink.push(final("Bob", 1, "morning alice", at: 2.5))
            try sink.push(final("Alice", 2, "shall we start", at: 4.5))
            try sink.finish()
            return try String(contentsOfFile: path, encoding: .utf8)
        }
    }

    @Test func webVTTCuesAreVoiceSpans() throws {
        let vtt = try Self.written("webvtt")
        #expect(vtt.contains("<v Alice>good morning everyone</v>"), "\(vtt)")
        #expect(vtt.contains("<v Bob>morning alice</v>"), "\(vtt)")
        #expect(vtt.contains("<v Alice>shall we start</v>"), "\(vtt)")
        let cueTexts = vtt.components(separatedBy: "\n\n").filter { $0.contains(" --> ") }
        #expect(cueTexts.count == 3 && cueTexts.allSatisfy { $0.components(separatedBy: "<v ").count == 2 },
                "one speaker a cue: \(cueTexts)")
    }

    @Test func srtAndTextLinesStartWithTheSpeaker() throws {
        let srt = try Self.written("srt")
        #expect(srt.contains("\nAlice: good morning everyone\n") && srt.contains("\nBob: morning alice\n"), "\(srt)")
        #expect(try Self.written("txt") == "Alice: good morning everyone\nBob: morning alice\nAlice: shall we start\n")
    }

    @Test func theJSONTranscriptNamesTheSpeaker() throws {
        let data = Data(try Self.written("json").utf8)
        let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let utterances = try #require(document["utterances"] as? [[String: Any]])
        #expect(utterances.map { $0["speaker"] as? String } == ["Alice", "Bob", "Alice"])
        #expect(utterances.map { $0["segment"] as? Int } == [1, 1, 2], "each speaker counts its own segments")
    }

    @Test func aSpeakersNameIsEscapedInAVoiceSpan() {
        let cue = CaptionCue(start: 0, end: 1, lines: ["hi"])
        #expect(WebVTTWriter().render(cue, speaker: "A<b>&c") == "00:00:00.000 --> 00:00:01.000\n<v A&lt;b&gt;&amp;c>hi</v>\n\n")
        #expect(WebVTTWriter().render(cue) == "00:00:00.000 --> 00:00:01.000\nhi\n\n", "no speaker, no span")
    }

    @Test func eventsCarryTheSpeaker() {
        let update = TranscriptUpdate(segment: 1, revision: 1, isFinal: true, start: 0, end: 1, text: "hi", speaker: "Alice")
        #expect(update.json["speaker"] == .string("Alice"))
        #expect(TranscriptUpdate(segment: 1, revision: 1, isFinal: true, start: 0, end: 1, text: "hi").json["speaker"] == nil)
    }
}
