import AudioGraph
import AudioGraphTestKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization
import Testing

/// Issue 17, item 2: the control API of a live session (`POST /v1/sessions/{id}/transcription|captions|language`):
/// every endpoint answers the new state through the TranscriptionSession's own calls, every refusal has its
/// status and stable code, state changes reach every viewer as `state` events, and two viewers' concurrent
/// commands apply one at a time with both viewers seeing the same sequence.
@Suite struct SessionControlAPITests {
    func object(_ response: HTTPResponse) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any]) ?? [:]
    }

    @Test func transcriptionCaptionsAndLanguageAnswerTheNewState() async throws {
        let fixture = try ControlFixture()
        defer { Task { await fixture.finish() } }
        let alice = fixture.api.aliceToken
        let started = await onWorker { fixture.post("/v1/sessions/standup/transcription", #"{"action":"start"}"#, token: alice) }
        #expect(started.status == 200, "\(started.text)")
        #expect(object(started)["transcribing"] as? Bool == true)
        #expect(object(started)["captions"] as? Bool == false)
        #expect(fixture.session.isTranscribing)

        let shown = await onWorker { fixture.post("/v1/sessions/standup/captions", #"{"visible":true}"#, token: alice) }
        #expect(shown.status == 200, "\(shown.text)")
        #expect(object(shown)["captions"] as? Bool == true && object(shown)["captionsVisible"] as? Bool == true)
        #expect(fixture.session.captionsVisible)

        let french = await onWorker { fixture.post("/v1/sessions/standup/language", #"{"language":"fr-FR"}"#, token: alice) }
        #expect(french.status == 200, "\(french.text)")
        #expect(object(french)["captionLanguage"] as? String == "fr-FR")
        #expect(fixture.session.captionLanguage == "fr-FR")

        let hidden = await onWorker { fixture.post("/v1/sessions/standup/captions", #"{"visible":false}"#, token: alice) }
        #expect(object(hidden)["captions"] as? Bool == false && object(hidden)["captionsVisible"] as? Bool == false)
        let stopped = await onWorker { fixture.post("/v1/sessions/standup/transcription", #"{"action":"stop"}"#, token: alice) }
        #expect(stopped.status == 200 && object(stopped)["transcribing"] as? Bool == false, "\(stopped.text)")
        #expect(!fixture.session.isTranscribing)
        #expect(stopped.header("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test func anUnknownLanguageIs400WithTheEnginesList() async throws {
        let fixture = try ControlFixture()
        defer { Task { await fixture.finish() } }
        let answer = await onWorker { fixture.post("/v1/sessions/standup/language", #"{"language":"de-DE"}"#, token: fixture.api.aliceToken) }
        #expect(answer.status == 400)
        let error = object(answer)["error"] as? [String: Any]
        #expect(error?["code"] as? String == "unsupported_language")
        #expect(error?["engine"] as? String == "test-control-words")
        #expect(error?["supported"] as? [String] == ["en-US", "fr-FR"])
        #expect(fixture.session.captionLanguage == "en-US")
    }

    @Test func refusalsHaveTheirStatusAndCode() async throws {
        let fixture = try ControlFixture()
        defer { Task { await fixture.finish() } }
        let alice = fixture.api.aliceToken
        let path = "/v1/sessions/standup/transcription"
        let start = #"{"action":"start"}"#
        func expect(_ response: HTTPResponse, _ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
            #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
            #expect(errorCode(response) == code, "\(response.text)", sourceLocation: sourceLocation)
        }
        // The token travels in the Authorization header only: not in the query, not in a cookie.
        expect(await onWorker { fixture.post(path, start, token: nil) }, 401, "missing_token")
        expect(await onWorker { fixture.post(path, start, token: nil, query: [("access_token", alice), ("token", alice)]) }, 401, "missing_token")
        expect(await onWorker { fixture.post(path, start, token: nil, headers: ["cookie": "token=\(alice); audiograph.token=\(alice)"]) },
               401, "missing_token")
        expect(await onWorker { fixture.post(path, start, token: "agt_wrong") }, 401, "invalid_token")
        // Bob takes no part: he learns nothing of the session.
        expect(await onWorker { fixture.post(path, start, token: fixture.api.bobToken) }, 404, "not_found")
        expect(await onWorker { fixture.post("/v1/sessions/nosuch/captions", #"{"visible":true}"#, token: alice) }, 404, "not_found")
        // Bodies: JSON only, exactly the documented field, capped in size.
        expect(await onWorker { fixture.post(path, start, token: alice, contentType: "text/plain") }, 415, "unsupported_media_type")
        expect(await onWorker { fixture.post(path, start, token: alice, contentType: nil) }, 415, "unsupported_media_type")
        expect(await onWorker { fixture.post(path, "action=start", token: alice,
                                             contentType: "application/x-www-form-urlencoded") }, 415, "unsupported_media_type")
        expect(await onWorker { fixture.post(path, "{\"action\":", token: alice) }, 400, "malformed_body")
        expect(await onWorker { fixture.post(path, "[\"start\"]", token: alice) }, 400, "malformed_body")
        expect(await onWorker { fixture.post(path, "{}", token: alice) }, 400, "malformed_body")
        expect(await onWorker { fixture.post(path, #"{"action":"go"}"#, token: alice) }, 400, "malformed_body")
        expect(await onWorker { fixture.post(path, #"{"action":"start","force":true}"#, token: alice) }, 400, "unknown_field")
        expect(await onWorker { fixture.post("/v1/sessions/standup/captions", #"{"visible":"yes"}"#, token: alice) }, 400, "malformed_body")
        expect(await onWorker { fixture.post("/v1/sessions/standup/language", #"{"language":7}"#, token: alice) }, 400, "malformed_body")
        var large = HTTPRequest(method: "POST", path: path, headers: ["authorization": "Bearer \(alice)", "content-type": "application/json"])
        large.bodyTooLarge = true
        let largeRequest = large
        expect(await onWorker { fixture.api.api.handle(largeRequest) }, 413, "body_too_large")
        // Only POST steers; GET elsewhere stays, POST elsewhere is 405.
        let get = fixture.api.get(path, token: alice)
        expect(get, 405, "method_not_allowed")
        #expect(get.header("Allow") == "POST")
        #expect(fixture.api.get("/v1/sessions/standup/language", token: alice, method: "PUT").header("Allow") == "POST")
        let postCalls = await onWorker { fixture.post("/v1/calls", "{}", token: alice) }
        expect(postCalls, 405, "method_not_allowed")
        #expect(postCalls.header("Allow") == "GET, HEAD")
        // None of that steered the session.
        #expect(!fixture.session.isTranscribing)
    }

    @Test func hiddenControlsAre403WhateverTheBody() async throws {
        let fixture = try ControlFixture(settings: SessionSettings(id: "standup"))
        defer { Task { await fixture.finish() } }
        let alice = fixture.api.aliceToken
        for (route, body) in [("transcription", #"{"action":"start"}"#), ("captions", #"{"visible":true}"#),
                              ("language", #"{"language":"fr-FR"}"#), ("transcription", "not json")] {
            let answer = await onWorker { fixture.post("/v1/sessions/standup/\(route)", body, token: alice) }
            #expect(answer.status == 403 && errorCode(answer) == "control_hidden", "\(route): \(answer.text)")
        }
        let onlyCaptions = try ControlFixture(settings: SessionSettings(id: "standup", hideClosedCaptionButton: false))
        defer { Task { await onlyCaptions.finish() } }
        let allowed = await onWorker { onlyCaptions.post("/v1/sessions/standup/captions", #"{"visible":true}"#, token: onlyCaptions.api.aliceToken) }
        #expect(allowed.status == 200, "\(allowed.text)")
        let refused = await onWorker { onlyCaptions.post("/v1/sessions/standup/transcription", #"{"action":"start"}"#, token: onlyCaptions.api.aliceToken) }
        #expect(refused.status == 403 && errorCode(refused) == "control_hidden")
        #expect(!fixture.session.isTranscribing && !fixture.session.captionsEnabled && !onlyCaptions.session.isTranscribing)
    }

    @Test func aSessionThatIsNotLiveIs409() async throws {
        let fixture = try ControlFixture()
        let alice = fixture.api.aliceToken
        // A stored session of alice's that no longer runs.
        try fixture.api.addSession("yesterday", participants: ["alice"], transcripts: 1)
        let stored = await onWorker { fixture.post("/v1/sessions/yesterday/transcription", #"{"action":"start"}"#, token: alice) }
        #expect(stored.status == 409 && errorCode(stored) == "not_running", "\(stored.text)")
        // Bob's stored session stays unknown to alice.
        try fixture.api.addSession("bobs", participants: ["bob"], transcripts: 1)
        let foreign = await onWorker { fixture.post("/v1/sessions/bobs/transcription", #"{"action":"start"}"#, token: alice) }
        #expect(foreign.status == 404)
        // The graph finished while the session is still listed: the session's own not_running.
        await fixture.finish()
        let finished = await onWorker { fixture.post("/v1/sessions/standup/transcription", #"{"action":"start"}"#, token: alice) }
        #expect(finished.status == 409 && errorCode(finished) == "not_running", "\(finished.text)")
        // Ended and gone from the list, with nothing stored under its id: nothing is known of it any more.
        fixture.api.live.remove(fixture.live)
        let ended = await onWorker { fixture.post("/v1/sessions/standup/captions", #"{"visible":true}"#, token: alice) }
        #expect(ended.status == 404, "\(ended.text)")
    }

    @Test func stateChangesArePushedToEveryViewer() async throws {
        let fixture = try ControlFixture()
        defer { Task { await fixture.finish() } }
        let viewer = try StreamTap(fixture.api.get("/v1/sessions/standup/captions", token: fixture.carolToken))
        let first = stateEvents(viewer.all)
        #expect(first.count == 1, "a viewer starts with the state: \(viewer.all)")
        #expect(first.first?["transcribing"] as? Bool == false)
        #expect((first.first?["controls"] as? [String: Bool]) == ["transcription": true, "captions": true, "language": true])
        #expect(first.first?["languages"] as? [String] == ["en-US", "fr-FR"])
        _ = await onWorker { fixture.post("/v1/sessions/standup/transcription", #"{"action":"start"}"#, token: fixture.api.aliceToken) }
        _ = await onWorker { fixture.post("/v1/sessions/standup/captions", #"{"visible":true}"#, token: fixture.api.aliceToken) }
        try await eventually("two more state events") { stateEvents(viewer.all).count == 3 }
        let events = stateEvents(viewer.all)
        #expect(events[1]["transcribing"] as? Bool == true && events[1]["captions"] as? Bool == false)
        #expect(events[2]["captions"] as? Bool == true && events[2]["captionsVisible"] as? Bool == true)
        // Captions flow once visible.
        try await eventually("a caption") { viewer.all.contains("event: caption") }
        // A change made elsewhere (the terminal, --control) is pushed too.
        try await fixture.session.setCaptionLanguage("fr-FR")
        try await eventually("the language event") { stateEvents(viewer.all).last?["captionLanguage"] as? String == "fr-FR" }
        // /v1/live carries the state for the page.
        let listed = (object(fixture.api.get("/v1/live", token: fixture.carolToken))["sessions"] as? [[String: Any]])?.first
        #expect((listed?["state"] as? [String: Any])?["captionLanguage"] as? String == "fr-FR")
    }

    @Test func twoViewersCommandsApplyInOrderAndBothSeeEveryChange() async throws {
        let fixture = try ControlFixture()
        defer { Task { await fixture.finish() } }
        let aliceView = try StreamTap(fixture.api.get("/v1/sessions/standup/captions", token: fixture.api.aliceToken))
        let carolView = try StreamTap(fixture.api.get("/v1/sessions/standup/captions", token: fixture.carolToken))
        let rounds = 8
        // Alice flips captions, Carol flips the language, at the same time.
        async let aliceAnswers = onWorker { () -> [HTTPResponse] in
            (0..<rounds).map { i in fixture.post("/v1/sessions/standup/captions", "{\"visible\":\(i % 2 == 0)}", token: fixture.api.aliceToken) }
        }
        async let carolAnswers = onWorker { () -> [HTTPResponse] in
            (0..<rounds).map { i in
                fixture.post("/v1/sessions/standup/language", "{\"language\":\"\(i % 2 == 0 ? "fr-FR" : "en-US")\"}", token: fixture.carolToken)
            }
        }
        let (alice, carol) = await (aliceAnswers, carolAnswers)
        #expect((alice + carol).allSatisfy { $0.status == 200 }, "\((alice + carol).map(\.text))")
        // Each answer is the state right after its own command.
        for (i, answer) in alice.enumerated() { #expect(object(answer)["captions"] as? Bool == (i % 2 == 0)) }
        for (i, answer) in carol.enumerated() { #expect(object(answer)["captionLanguage"] as? String == (i % 2 == 0 ? "fr-FR" : "en-US")) }

        try await eventually("every state event at both viewers") {
            stateEvents(aliceView.all).count == 1 + 2 * rounds && stateEvents(carolView.all).count == 1 + 2 * rounds
        }
        let seenByAlice = stateEvents(aliceView.all).map { "\($0["captions"]!) \($0["captionLanguage"]!)" }
        let seenByCarol = stateEvents(carolView.all).map { "\($0["captions"]!) \($0["captionLanguage"]!)" }
        #expect(seenByAlice == seenByCarol, "both viewers see one sequence")
        // One change per event, and each viewer's own commands in the order sent.
        let events = stateEvents(aliceView.all)
        var captions: [Bool] = []
        var languages: [String] = []
        for (before, after) in zip(events, events.dropFirst()) {
            let captionsChanged = (before["captions"] as? Bool) != (after["captions"] as? Bool)
            let languageChanged = (before["captionLanguage"] as? String) != (after["captionLanguage"] as? String)
            #expect(captionsChanged != languageChanged, "one command per event: \(before) → \(after)")
            if captionsChanged { captions.append(after["captions"] as! Bool) }
            if languageChanged { languages.append(after["captionLanguage"] as! String) }
        }
        #expect(captions == (0..<rounds).map { $0 % 2 == 0 })
        #expect(languages == (0..<rounds).map { $0 % 2 == 0 ? "fr-FR" : "en-US" })
        #expect(fixture.session.captionsEnabled == false && fixture.session.captionLanguage == "en-US")
    }

    @Test func overTheSocketBodiesAreReadAndCapped() async throws {
        let folder = try TemporaryFolder(prefix: "control-socket")
        let store = try SQLiteTranscriptStore(path: folder.path("t.sqlite"))
        defer { store.close() }
        let token = try AccessTokens(store: store).create(user: "alice").token
        let server = try TranscriptServer(store: store, listen: try #require(ListenAddress("127.0.0.1:0")))
        defer { server.shutdown() }
        let fixture = try ControlFixture()
        defer { Task { await fixture.finish() } }
        server.attach(fixture.session, id: "standup", room: "lab", participants: ["alice"])

        func post(_ body: Data, contentType: String = "application/json") async throws -> (Int, String) {
            var request = URLRequest(url: try #require(URL(string: server.baseURL + "/v1/sessions/standup/transcription")))
            request.httpMethod = "POST"
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            request.setValue(contentType, forHTTPHeaderField: "Content-Type")
            request.httpBody = body
            let (data, response) = try await URLSession.shared.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? -1, String(decoding: data, as: UTF8.self))
        }
        let (status, text) = try await post(Data(#"{"action":"start"}"#.utf8))
        #expect(status == 200 && text.contains("\"transcribing\":true"), "\(status) \(text)")
        #expect(fixture.session.isTranscribing)
        let padded = "{\"action\":\"stop\"" + String(repeating: " ", count: HTTPRequest.maximumBody) + "}"
        let (tooLarge, refusal) = try await post(Data(padded.utf8))
        #expect(tooLarge == 413 && refusal.contains("body_too_large"), "\(tooLarge) \(refusal)")
        #expect(fixture.session.isTranscribing, "a refused body steers nothing")
        // The server still answers on the same daemon afterwards.
        let (stopped, _) = try await post(Data(#"{"action":"stop"}"#.utf8))
        #expect(stopped == 200 && !fixture.session.isTranscribing)
    }
}
