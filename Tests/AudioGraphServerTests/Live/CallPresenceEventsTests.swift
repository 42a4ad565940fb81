import AudioGraph
import Foundation
import Testing

/// Issue 36, item 2: a call's viewers are told who is in it (`participants` events, the newest replayed to a
/// late viewer) and get each speaker's levels, throttled per speaker rather than for the session as a whole.
@Suite struct CallPresenceEventsTests {
    static func stream(_ fixture: APIFixture) throws -> EventStream {
        let response = fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken)
        guard case .events(let stream) = response.body else { throw CancellationError() }
        return stream
    }

    @Test func viewersAreToldWhoIsInTheCallAndLateViewersGetTheNewest() throws {
        let fixture = try APIFixture()
        let session = fixture.live.add(id: "standup", room: "lab", participants: ["alice"])
        let early = try Self.stream(fixture)
        session.publishParticipants([ParticipantPresence(name: "alice", connected: true, muted: false)])
        session.publishParticipants([ParticipantPresence(name: "alice", connected: true, muted: true),
                                     ParticipantPresence(name: "bob", connected: false, muted: false)])
        let late = try Self.stream(fixture)
        fixture.live.remove(session)
        let seen = LiveCaptionsAPITests.events(early.drain()).filter { $0.name == "participants" }.map(\.data)
        #expect(seen == [#"{"participants":[{"name":"alice","connected":true,"muted":false}]}"#,
                         #"{"participants":[{"name":"alice","connected":true,"muted":true},{"name":"bob","connected":false,"muted":false}]}"#])
        let replayed = LiveCaptionsAPITests.events(late.drain()).filter { $0.name == "participants" }.map(\.data)
        #expect(replayed == [seen[1]], "a late viewer gets who is in the call now, once")
    }

    @Test func levelsAreThrottledPerSpeaker() throws {
        let fixture = try APIFixture()
        let session = fixture.live.add(id: "standup", room: "lab", participants: ["alice"])
        let stream = try Self.stream(fixture)
        // Two speakers' readings at the same stream times: each gets its own 10 a second.
        for step in 0..<10 {
            let time = Double(step) * 0.05
            session.publishLevel(time: time, level: 0.5, speaker: "alice")
            session.publishLevel(time: time, level: 0.25, speaker: "bob")
        }
        session.publishLevel(time: 0, level: 0.1)
        fixture.live.remove(session)
        let levels = LiveCaptionsAPITests.events(stream.drain()).filter { $0.name == "level" }.map(\.data)
        #expect(levels.filter { $0.contains(#""speaker":"alice""#) }.count == 5, "\(levels)")
        #expect(levels.filter { $0.contains(#""speaker":"bob""#) }.count == 5, "\(levels)")
        #expect(levels.contains(#"{"time":0,"level":0.1}"#), "a reading of no speaker has no speaker key: \(levels)")
    }

    /// Issue 36, item 3: a viewer that reconnects with `Last-Event-ID` gets only the captions after it.
    @Test func aReconnectingViewerGetsOnlyWhatItMissed() throws {
        let fixture = try APIFixture()
        let session = fixture.live.add(id: "standup", room: "lab", participants: ["alice"])
        for revision in 1...3 { session.publish(LiveCaptionsAPITests.update(1, revision, "go \(revision)")) }
        let first = try Self.stream(fixture)
        let ids = LiveCaptionsAPITests.events(first.drain()).count
        #expect(ids == 3)
        session.publish(LiveCaptionsAPITests.update(2, 1, final: true, "stop"))
        let response = fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken, headers: ["last-event-id": "3"])
        guard case .events(let again) = response.body else { throw CancellationError() }
        fixture.live.remove(session)
        let replayed = LiveCaptionsAPITests.events(again.drain()).filter { $0.name == "caption" }
        #expect(replayed.count == 1 && replayed[0].data.contains("\"stop\""), "\(replayed)")
    }
}
