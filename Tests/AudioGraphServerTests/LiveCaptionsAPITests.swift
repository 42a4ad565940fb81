import AudioGraph
import Foundation
import Testing

/// Live sessions over the API: who may watch, what the event stream carries, late joiners, the end.
@Suite struct LiveCaptionsAPITests {
    static func update(_ segment: Int, _ revision: Int, final: Bool = false, _ text: String) -> LiveCaption {
        .update(TranscriptUpdate(segment: segment, revision: revision, isFinal: final, start: 0.5, end: 1.5, text: text))
    }

    /// The events of an SSE text: (event name, data) pairs.
    static func events(_ text: String) -> [(name: String, data: String)] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var name: String?
            var data: [String] = []
            for line in block.split(separator: "\n") {
                if line.hasPrefix("event: ") { name = String(line.dropFirst(7)) }
                if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            return name.map { ($0, data.joined(separator: "\n")) }
        }
    }

    @Test func liveListsOnlyTheUsersSessions() throws {
        let fixture = try APIFixture()
        fixture.live.add(id: "standup", room: "lab", participants: ["alice"])
        fixture.live.add(id: "private", room: "", participants: ["bob"])
        let alice = jsonObject(fixture.get("/v1/live", token: fixture.aliceToken))["sessions"] as? [[String: Any]]
        #expect(alice?.map { $0["id"] as? String } == ["standup"])
        #expect(alice?.first?["room"] as? String == "lab")
    }

    @Test func captionsStreamPartialsFinalsAndClearThenEnd() throws {
        let fixture = try APIFixture()
        let session = fixture.live.add(id: "standup", room: "lab", participants: ["alice"])
        let response = fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken)
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        guard case .events(let stream) = response.body else {
            Issue.record("not an event stream")
            return
        }
        session.publish(Self.update(1, 1, "go"))
        session.publish(Self.update(1, 2, "go forward"))
        session.publish(Self.update(1, 3, final: true, "go forward ten"))
        session.publish(.clear)
        fixture.live.remove(session)
        #expect(stream.isClosed)
        let events = Self.events(stream.drain())
        #expect(events.map(\.name) == ["caption", "caption", "caption", "caption", "end"])
        let data = events.prefix(4).map { try? JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Any] }
        #expect(data.map { $0?["type"] as? String } == ["partial", "partial", "final", "clear"])
        #expect(data.map { $0?["revision"] as? Int } == [1, 2, 3, nil])
        #expect(data[1]?["text"] as? String == "go forward")
        #expect(data[1]?["segment"] as? Int == 1)
        #expect(data[1]?["final"] == nil)
    }

    @Test func everyCaptionCarriesItsPublicationTime() throws {
        let fixture = try APIFixture()
        let session = fixture.live.add(id: "standup", room: "", participants: ["alice"])
        guard case .events(let stream) = fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken).body else {
            Issue.record("not an event stream")
            return
        }
        session.publish(Self.update(1, 1, "go"), at: 1_764_686_400.123456)
        session.publish(.clear, at: 1_764_686_401.5)
        let before = Date().timeIntervalSince1970
        session.publish(Self.update(2, 1, "now"))
        let after = Date().timeIntervalSince1970
        let data = Self.events(stream.drain()).map { try? JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Any] }
        #expect(data.count == 3)
        #expect(data.prefix(2).map { $0?["published"] as? Double } == [1_764_686_400.123456, 1_764_686_401.5])
        let now = try #require(data.last??["published"] as? Double)
        #expect(now >= before - 0.000001 && now <= after + 0.000001)
    }

    @Test func aLateViewerSeesWhatIsOnScreenSinceTheLastClear() throws {
        let fixture = try APIFixture()
        let session = fixture.live.add(id: "standup", room: "", participants: ["alice"])
        session.publish(Self.update(1, 1, final: true, "old words"))
        session.publish(.clear)
        session.publish(Self.update(2, 1, final: true, "new words"))
        session.publish(Self.update(3, 1, "typing"))
        guard case .events(let stream) = fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken).body else {
            Issue.record("not an event stream")
            return
        }
        let text = stream.drain()
        #expect(!text.contains("old words"))
        #expect(text.contains("new words"))
        #expect(text.contains("typing"))
        #expect(text.contains("\"type\":\"clear\""))
    }

    @Test func othersCannotWatch() throws {
        let fixture = try APIFixture()
        fixture.live.add(id: "standup", room: "", participants: ["alice"])
        let foreign = fixture.get("/v1/sessions/standup/captions", token: fixture.bobToken)
        let missing = fixture.get("/v1/sessions/nothing/captions", token: fixture.bobToken)
        #expect(foreign.status == 404)
        #expect(foreign.text == missing.text)
    }

    @Test func headAnswersHeadersWithoutAStream() throws {
        let fixture = try APIFixture()
        fixture.live.add(id: "standup", room: "", participants: ["alice"])
        let response = fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken, method: "HEAD")
        #expect(response.status == 200)
        guard case .bytes(let bytes) = response.body else {
            Issue.record("HEAD opened a stream")
            return
        }
        #expect(bytes.isEmpty)
    }

    @Test func anEndedSessionLeavesTheList() throws {
        let fixture = try APIFixture()
        let session = fixture.live.add(id: "standup", room: "", participants: ["alice"])
        fixture.live.remove(session)
        #expect(fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken).status == 404)
        let sessions = jsonObject(fixture.get("/v1/live", token: fixture.aliceToken))["sessions"] as? [Any]
        #expect(sessions?.isEmpty == true)
    }
}
