import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 17, item 3: `GET /v1/transcripts/{tid}.srt|.vtt|.json` is byte for byte the file a `caption-sink` of
/// that format writes for the same finals, under the transcript's own access rule; `tokens create`'s advice;
/// the page's empty state and login hint.
@Suite struct TranscriptDownloadTests {
    static let finals = [
        TranscriptUpdate(segment: 1, revision: 3, isFinal: true, start: 0.52, end: 2.9, text: "go forward ten meters",
                         confidence: 0.81, words: [.init(word: "go", start: 0.52, end: 0.7), .init(word: "forward", start: 0.7, end: 1.3),
                                                   .init(word: "ten", start: 1.4, end: 1.9), .init(word: "meters", start: 2.0, end: 2.9)]),
        TranscriptUpdate(segment: 2, revision: 1, isFinal: true, start: 3.5, end: 9.75,
                         text: "a long second utterance that the cue rules must split over more than one cue of captions"),
    ]

    /// What the caption sink writes for `finals` in `format`.
    func sinkFile(_ format: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent("cc.\(format)").path
        let sinkFormat = format == "vtt" ? "webvtt" : format
        let harness = try NodeHarness(type: CaptionSinkNode.self, parameters: ["format": .string(sinkFormat), "path": .string(path)],
                                      input: nil, inputKinds: [.transcript], baseDirectory: folder.path,
                                      session: SessionSettings(id: "standup"))
        for update in Self.finals { try harness.push(Event(node: "asr", time: update.end, payload: .transcript(update))) }
        try harness.finish()
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    @Test func downloadsAreTheSinksFiles() throws {
        let fixture = try APIFixture()
        let key = try fixture.store.createSession(NewSession(sessionID: "standup", roomName: "lab", startTime: 1_700_000_000,
                                                             participants: ["alice"]))
        let transcript = try fixture.store.beginTranscript(NewTranscript(tid: "t-1", sessionKey: key, sessionID: "standup",
                                                                         language: "en-US", startTime: 1_700_000_000, transcriptURL: ""))
        for update in Self.finals {
            try fixture.store.appendUtterance(StoredUtterance(update, language: "en-US"), transcript: transcript, time: 1_700_000_010)
        }
        for (format, type) in [("srt", "application/x-subrip"), ("vtt", "text/vtt"), ("json", "application/json")] {
            let answer = fixture.get("/v1/transcripts/t-1.\(format)", token: fixture.aliceToken)
            #expect(answer.status == 200, "\(format): \(answer.text)")
            #expect(answer.header("Content-Type")?.hasPrefix(type) == true)
            #expect(answer.header("Content-Disposition") == "attachment; filename=\"t-1.\(format)\"")
            #expect(answer.text == (try sinkFile(format, in: fixture.folder)), "\(format):\n\(answer.text)")
            // The access rule of the transcript itself: bob took no part.
            let foreign = fixture.get("/v1/transcripts/t-1.\(format)", token: fixture.bobToken)
            #expect(foreign.status == 404 && errorCode(foreign) == "not_found")
            #expect(fixture.get("/v1/transcripts/t-1.\(format)", token: nil).status == 401)
            #expect(fixture.get("/v1/transcripts/nosuch.\(format)", token: fixture.aliceToken).status == 404)
        }
        #expect(fixture.get("/v1/transcripts/t-1.srt", token: fixture.aliceToken).text.contains("00:00:00,520 --> "))
        // Without an extension: the transcript as JSON, as before.
        #expect(fixture.get("/v1/transcripts/t-1", token: fixture.aliceToken).text.contains("\"utterances\""))
    }

    @Test func tokenAdviceWarnsOnlyWhenTheUserTakesPartInNothing() throws {
        let fixture = try APIFixture()
        #expect(TokenAdvice.usage(store: "out/t.sqlite")
            == "send it as \"Authorization: Bearer TOKEN\", or paste it into the web page of \"audiograph serve --store out/t.sqlite\"")
        #expect(TokenAdvice.participationWarning(user: "alice", store: fixture.store)?
            .contains("alice is a participant in no stored session") == true)
        try fixture.addSession("standup", participants: ["alice"], transcripts: 1)
        #expect(TokenAdvice.participationWarning(user: "alice", store: fixture.store) == nil)
        #expect(TokenAdvice.participationWarning(user: "bob", store: fixture.store) != nil)
    }

    @Test func thePageSaysWhyItIsEmptyAndHowToLogIn() {
        let fixture = try? APIFixture()
        let page = fixture?.get("/", token: nil).text ?? ""
        #expect(page.contains("audiograph tokens create --user NAME --store STORE"), "\(page)")
        let script = fixture?.get("/app.js", token: nil).text ?? ""
        #expect(script.contains("'You are not a participant in any session; sessions list participants in '"), "\(script.prefix(600))")
        #expect(script.contains("'session.participants (default: the user who ran the pipeline).'"))
    }
}
