@testable import AudioGraphServer
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Participants' audio over real WebSockets: a `TranscriptServer` on port 0 with a fake ingest, and an RFC 6455
/// client (python3-websockets) as a child process.
@Suite struct ParticipantAudioSocketTests {
    /// s16le with the token in `Authorization`, in messages of odd sizes: the ingest gets exactly the samples.
    @Test func s16leWithBearerHeaderArrivesExactly() async throws {
        let fixture = try CallsFixture()
        let sizes = [1, 3, 1001, 7, 160]
        var expected: [Float] = []
        var messages: [WebSocketMessage] = []
        for (index, frames) in sizes.enumerated() {
            let audio = testAudio(frames: frames, encoding: .s16le, seed: index * 1000)
            expected += audio.samples
            messages.append(.binary(audio.bytes))
        }
        let events = try await WebSocketClient.run(fixture.plan("call", "alice", as: "alice", messages: messages))
        #expect(events.closeCode == 1000)
        let stream = try #require(fixture.ingest.stream("call", "alice"))
        try await eventually("the stream's close") { stream.isClosed }
        #expect(stream.format == AudioFormat(sampleRate: 16000, channels: 1))
        #expect(stream.samples == expected)
        #expect(stream.closes == 1)
        #expect(stream.writesAfterClose == 0)
    }

    /// f32le stereo at 48 kHz with the token as a subprotocol (as a browser sends it): the answer's subprotocol
    /// is `audiograph`, and the samples arrive exactly.
    @Test func f32leStereoWithSubprotocolTokenArrivesExactly() async throws {
        let fixture = try CallsFixture()
        let first = testAudio(frames: 5, channels: 2, encoding: .f32le, seed: 1)
        let second = testAudio(frames: 999, channels: 2, encoding: .f32le, seed: 2)
        let events = try await WebSocketClient.run(fixture.plan(
            "other", "carol", as: "carol", query: "sampleRate=48000&channels=2&encoding=f32le", bySubprotocol: true,
            messages: [.binary(first.bytes), .binary(second.bytes)]))
        #expect(events.event("open")?["subprotocol"] as? String == "audiograph")
        #expect(events.closeCode == 1000)
        let stream = try #require(fixture.ingest.stream("other", "carol"))
        try await eventually("the stream's close") { stream.isClosed }
        #expect(stream.format == AudioFormat(sampleRate: 48000, channels: 2))
        #expect(stream.samples == first.samples + second.samples)
    }

    /// `{"muted":true}` and `{"muted":false}` reach the stream; audio sent while muted is not written.
    @Test func mutedAndUnmutedReachTheStream() async throws {
        let fixture = try CallsFixture()
        let before = testAudio(frames: 100, encoding: .s16le, seed: 1)
        let during = testAudio(frames: 50, encoding: .s16le, seed: 2)
        let after = testAudio(frames: 30, encoding: .s16le, seed: 3)
        let events = try await WebSocketClient.run(fixture.plan(
            "call", "bob", as: "bob",
            messages: [.binary(before.bytes), .text(#"{"muted":true}"#), .binary(during.bytes),
                       .text(#"{"muted": false}"#), .binary(after.bytes)]))
        #expect(events.closeCode == 1000)
        let stream = try #require(fixture.ingest.stream("call", "bob"))
        try await eventually("the stream's close") { stream.isClosed }
        #expect(stream.mutes == [true, false])
        #expect(stream.samples == before.samples + after.samples)
    }

    /// A relay sends for another participant; a client killed mid-stream (no close frame) ends the stream too.
    @Test func aVanishedClientEndsTheStream() async throws {
        let fixture = try CallsFixture()
        let audio = testAudio(frames: 320, encoding: .s16le)
        let client = try WebSocketClient(fixture.plan("call", "alice", as: "relay", messages: [.binary(audio.bytes)], then: "hold"))
        try await eventually("the audio") { fixture.ingest.stream("call", "alice")?.samples.count == audio.samples.count }
        let stream = try #require(fixture.ingest.stream("call", "alice"))
        #expect(!stream.isClosed)
        client.kill()
        _ = await client.events()
        try await eventually("the stream's close") { stream.isClosed }
        try await eventually("the socket's thread to end") { fixture.server.webSocketsOpen == 0 }
        #expect(stream.closes == 1)
    }

    /// Each fault gets its answer or close code while two healthy participants stream beside it, undisturbed.
    @Test func faultsLeaveHealthyParticipantsUndisturbed() async throws {
        let fixture = try CallsFixture()
        let aliceAudio = testAudio(frames: 800, encoding: .s16le, seed: 5)
        let bobAudio = testAudio(frames: 700, encoding: .s16le, seed: 6)
        let alice = try WebSocketClient(fixture.plan("call", "alice", as: "alice", messages: [.binary(aliceAudio.bytes)], then: "hold"))
        let bob = try WebSocketClient(fixture.plan("call", "bob", as: "bob", query: "encoding=s16le",
                                                   messages: [.binary(bobAudio.bytes)], then: "hold"))
        try await eventually("both healthy streams") {
            fixture.ingest.stream("call", "alice")?.samples.count == 800 && fixture.ingest.stream("call", "bob")?.samples.count == 700
        }

        // Refused before the upgrade.
        let badQuery = try await WebSocketClient.run(fixture.rawPlan(fixture.rawHandshake(
            "/v1/sessions/other/participants/x/audio?sampleRate=7999")))
        #expect(badQuery.head.hasPrefix("HTTP/1.1 400"))
        let badQueryBody = badQuery.event("response")?["body"] as? String ?? ""
        #expect(badQueryBody.contains("sampleRate"))
        #expect(try await WebSocketClient.run(fixture.plan("other", "x", as: "relay", query: "channels=3")).refusedStatus == 400)
        #expect(try await WebSocketClient.run(fixture.plan("call", "alice", as: "agt_0000000000000000_00")).refusedStatus == 401)
        #expect(try await WebSocketClient.run(fixture.plan("call", "carol", as: "carol")).refusedStatus == 404)
        #expect(try await WebSocketClient.run(fixture.plan("call", "bob", as: "alice")).refusedStatus == 404)
        #expect(try await WebSocketClient.run(fixture.plan("nosuch", "alice", as: "alice")).refusedStatus == 404)
        #expect(try await WebSocketClient.run(fixture.plan("call", "dave", as: "relay")).refusedStatus == 409)
        #expect(try await WebSocketClient.run(fixture.plan("call", "alice", as: "relay")).refusedStatus == 409)
        let noKey = try await WebSocketClient.run(fixture.rawPlan(fixture.rawHandshake("/v1/sessions/other/participants/x/audio", key: nil)))
        #expect(noKey.head.hasPrefix("HTTP/1.1 400"))
        let badKey = try await WebSocketClient.run(fixture.rawPlan(fixture.rawHandshake("/v1/sessions/other/participants/x/audio",
                                                                                         key: "c2hvcnQ=")))
        #expect(badKey.head.hasPrefix("HTTP/1.1 400"))
        let version = try await WebSocketClient.run(fixture.rawPlan(fixture.rawHandshake("/v1/sessions/other/participants/x/audio",
                                                                                          version: "8")))
        let versionHead = version.head
        #expect(versionHead.hasPrefix("HTTP/1.1 426"))
        #expect(versionHead.lowercased().contains("sec-websocket-version: 13"))

        // Closed after the upgrade, each with its code.
        let odd = try await WebSocketClient.run(fixture.plan("other", "odd", as: "relay", messages: [.binary([1, 2, 3])], then: "wait"))
        #expect(odd.closeCode == 1007)
        let big = try await WebSocketClient.run(fixture.plan("other", "big", as: "relay",
                                                             messages: [.binary([UInt8](repeating: 0, count: CallsFixture.maxMessageBytes + 2))],
                                                             then: "wait"))
        #expect(big.closeCode == 1009)
        let text = try await WebSocketClient.run(fixture.plan("other", "text", as: "relay", messages: [.text("hello")], then: "wait"))
        #expect(text.closeCode == 1003)
        let garbage = try await WebSocketClient.run(fixture.rawPlan(
            fixture.rawHandshake("/v1/sessions/other/participants/garbage/audio"),
            after: Array("GET / HTTP/1.1\r\nHost: x\r\n\r\n".utf8) + [UInt8](repeating: 0xFF, count: 64)))
        #expect(garbage.head.hasPrefix("HTTP/1.1 101"))
        // The server's answer to bytes that are not WebSocket framing: a close frame, 1002 Protocol Error.
        #expect((garbage.event("eof")?["received"] as? String)?.hasPrefix("880203ea") == true, "\(garbage)")
        // A text frame of bytes that are not UTF-8 (masked with 0): 1007 Invalid Payload, from wslay.
        let notUTF8 = try await WebSocketClient.run(fixture.rawPlan(
            fixture.rawHandshake("/v1/sessions/other/participants/latin1/audio"), after: [0x81, 0x82, 0, 0, 0, 0, 0xFF, 0xFE]))
        #expect((notUTF8.event("eof")?["received"] as? String)?.hasPrefix("880203ef") == true, "\(notUTF8)")
        for participant in ["odd", "big", "text", "garbage", "latin1"] {
            let stream = try #require(fixture.ingest.stream("other", participant), "no stream for \(participant)")
            try await eventually("\(participant)'s stream to close") { stream.isClosed }
        }

        // The healthy ones: still open, every sample there; then they close cleanly.
        let aliceStream = try #require(fixture.ingest.stream("call", "alice"))
        let bobStream = try #require(fixture.ingest.stream("call", "bob"))
        #expect(!aliceStream.isClosed && !bobStream.isClosed)
        alice.endInput()
        bob.endInput()
        #expect(await alice.events().closeCode == 1000)
        #expect(await bob.events().closeCode == 1000)
        try await eventually("the healthy streams' close") { aliceStream.isClosed && bobStream.isClosed }
        #expect(aliceStream.samples == aliceAudio.samples)
        #expect(bobStream.samples == bobAudio.samples)
        #expect(fixture.ingest.streams.allSatisfy { $0.closes == 1 })
    }

    /// The server stopping closes every open WebSocket with 1001 and ends its stream.
    @Test func shutdownClosesSocketsWithGoingAway() async throws {
        let fixture = try CallsFixture()
        let client = try WebSocketClient(fixture.plan("other", "carol", as: "carol", then: "hold"))
        try await eventually("the socket") { fixture.server.webSocketsOpen == 1 }
        fixture.server.shutdown(timeout: 10)
        #expect(fixture.server.webSocketsOpen == 0)
        #expect(fixture.ingest.stream("other", "carol")?.isClosed == true)
        #expect(await client.events().closeCode == 1001)
    }

    /// A client that sends nothing for the idle timeout is closed with 1001 and its stream ended.
    @Test func anIdleClientIsClosedWithGoingAway() async throws {
        let fixture = try CallsFixture(idleTimeoutSeconds: 0.3)
        let client = try WebSocketClient(fixture.plan("other", "carol", as: "carol", then: "hold"))
        try await eventually("the idle close") { fixture.ingest.stream("other", "carol")?.isClosed == true }
        #expect(await client.events().closeCode == 1001)
    }

    /// Reading is paced: at 1x real time with a 2 s lead, 4 s of audio sent at once cannot all be read in less
    /// than 1.3 s (4 s less the lead, less the one 0.5 s message read while under it, less wslay's 4 KiB
    /// buffer). Timed from before the client starts, so a slow machine only makes the wait longer: the bound
    /// holds whatever the load.
    @Test func audioFasterThanRealTimeIsPaced() async throws {
        let fixture = try CallsFixture(maxRealtimeFactor: 1)
        let half = testAudio(frames: 8000, encoding: .s16le)  // 0.5 s at 16 kHz per message
        let started = ContinuousClock.now
        let client = try WebSocketClient(fixture.plan("other", "carol", as: "carol",
                                                      messages: Array(repeating: .binary(half.bytes), count: 8), then: "hold"))
        try await eventually("all 4 s") { fixture.ingest.stream("other", "carol")?.samples.count == 64000 }
        let took = ContinuousClock.now - started
        #expect(took >= .milliseconds(1300), "4 s of audio were read in \(took)")
        #expect(await client.events().closeCode == 1000)
    }
}
