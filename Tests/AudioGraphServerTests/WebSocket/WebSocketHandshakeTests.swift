@testable import AudioGraphServer
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// The handshake, the query, the pacing and the authorization rule as plain values.
@Suite struct WebSocketHandshakeTests {
    static func handshake(_ headers: [String: String] = [:], method: String = "GET") -> HTTPRequest {
        var all = ["upgrade": "websocket", "connection": "keep-alive, Upgrade", "sec-websocket-version": "13",
                   "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="]
        for (name, value) in headers { all[name] = value }
        return HTTPRequest(method: method, path: "/", headers: all.filter { !$0.value.isEmpty })
    }

    /// RFC 6455 section 1.3's example.
    @Test func acceptKeyOfTheRFCExample() throws {
        #expect(WebSocketHandshake.accept(key: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let handshake = try WebSocketHandshake(request: Self.handshake(["sec-websocket-protocol": "audiograph, bearer.agt_1_2"]))
        #expect(handshake.protocols == ["audiograph", "bearer.agt_1_2"])
        #expect(handshake.answerHeaders(subprotocol: "audiograph").map(\.value)
            == ["websocket", "Upgrade", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=", "audiograph"])
    }

    @Test(arguments: [
        (["sec-websocket-key": ""], 400), (["sec-websocket-key": "c2hvcnQ="], 400),
        (["sec-websocket-key": "!!!!!!!!!!!!!!!!!!!!!!!!"], 400), (["upgrade": ""], 400), (["upgrade": "h2c"], 400),
        (["connection": "keep-alive"], 400), (["sec-websocket-version": "8"], 426), (["sec-websocket-version": ""], 426),
    ])
    func refusedHandshakes(headers: [String: String], status: Int) {
        #expect(throws: APIError.self) { try WebSocketHandshake(request: Self.handshake(headers)) }
        do { _ = try WebSocketHandshake(request: Self.handshake(headers)) } catch { #expect(error.status == status) }
    }

    @Test func postIsNotAHandshake() {
        #expect(throws: APIError.self) { try WebSocketHandshake(request: Self.handshake(method: "POST")) }
    }

    static func query(_ items: [(String, String)]) throws(APIError) -> ParticipantAudioRequest {
        try ParticipantAudioRequest(sessionID: "s", participant: "p",
                                    request: HTTPRequest(path: "/", query: items.map { (name: $0.0, value: $0.1) }))
    }

    @Test func queryDefaultsAndChoices() throws {
        let defaults = try Self.query([])
        #expect(defaults.format == AudioFormat(sampleRate: 16000, channels: 1))
        #expect(defaults.encoding == .s16le)
        let chosen = try Self.query([("sampleRate", "48000"), ("channels", "2"), ("encoding", "f32le")])
        #expect(chosen.format == AudioFormat(sampleRate: 48000, channels: 2))
        #expect(chosen.encoding == .f32le)
        #expect(try Self.query([("sampleRate", "8000")]).format.sampleRate == 8000)
    }

    /// Every refusal is a 400 naming the parameter.
    @Test(arguments: [
        ("sampleRate", "7999"), ("sampleRate", "48001"), ("sampleRate", "16k"), ("channels", "0"), ("channels", "3"),
        ("encoding", "mp3"), ("token", "agt_x"), ("access_token", "x"), ("volume", "2"),
    ])
    func badQueryNamesTheParameter(name: String, value: String) {
        do {
            _ = try Self.query([(name, value)])
            Issue.record("\(name)=\(value) was taken")
        } catch {
            #expect(error.status == 400)
            #expect(error.message.contains(name))
        }
    }

    @Test func repeatedParameterIsRefused() {
        #expect(throws: APIError.self) { try Self.query([("channels", "1"), ("channels", "2")]) }
    }

    @Test func routeMatchesOnlyTheAudioPath() {
        #expect(ParticipantAudioRequest.route(["sessions", "s", "participants", "p", "audio"])! == ("s", "p"))
        #expect(ParticipantAudioRequest.route(["sessions", "s", "participants", "p"]) == nil)
        #expect(ParticipantAudioRequest.route(["sessions", "s", "transcripts"]) == nil)
    }

    @Test func tokenFromHeaderElseSubprotocol() {
        let header = HTTPRequest(path: "/", headers: ["authorization": "Bearer agt_a"])
        #expect(ParticipantAudioRequest.token(of: header, protocols: ["bearer.agt_b"]) == "Bearer agt_a")
        let plain = HTTPRequest(path: "/")
        #expect(ParticipantAudioRequest.token(of: plain, protocols: ["audiograph", "bearer.agt_b"]) == "Bearer agt_b")
        #expect(ParticipantAudioRequest.token(of: plain, protocols: ["audiograph"]) == nil)
    }

    @Test func accessRule() {
        let access = ParticipantAudioAccess(participants: ["alice", "bob"], relays: ["gateway"])
        #expect(access.permits(user: "alice", toSendAs: "alice"))
        #expect(!access.permits(user: "alice", toSendAs: "bob"))
        #expect(!access.permits(user: "carol", toSendAs: "carol"))
        #expect(access.permits(user: "gateway", toSendAs: "anyone"))
        #expect(access.maxParticipants == 16)
    }

    /// 2 s lead at 1x: nothing to wait for up to 2 s ahead; beyond, the excess; at 4x, a quarter of it.
    @Test func pacing() {
        var pacer = ParticipantAudioPacer(sampleRate: 16000, factor: 1, leadSeconds: 2)
        #expect(pacer.pause(now: 100) == 0)
        pacer.add(frames: 32000, now: 100)
        #expect(pacer.pause(now: 100) == 0)
        pacer.add(frames: 16000, now: 100)
        #expect(pacer.pause(now: 100) == 1)
        #expect(pacer.pause(now: 100.5) == 0.5)
        #expect(pacer.pause(now: 102) == 0)
        var fast = ParticipantAudioPacer(sampleRate: 16000, factor: 4, leadSeconds: 2)
        fast.add(frames: 16000 * 6, now: 0)
        #expect(fast.pause(now: 0) == 1)
        var unlimited = ParticipantAudioPacer(sampleRate: 16000, factor: .infinity, leadSeconds: 2)
        unlimited.add(frames: 16000 * 600, now: 0)
        #expect(unlimited.pause(now: 0) == 0)
    }

    @Test func mutedMessages() {
        #expect(ParticipantAudioSocket.muted(#"{"muted":true}"#) == true)
        #expect(ParticipantAudioSocket.muted(#" { "muted" : false } "#) == false)
        #expect(ParticipantAudioSocket.muted(#"{"muted":1}"#) == nil)
        #expect(ParticipantAudioSocket.muted(#"{"muted":true,"x":1}"#) == nil)
        #expect(ParticipantAudioSocket.muted("muted") == nil)
    }

    /// Without an ingest the endpoint answers 501 (after the handshake and the token are checked).
    @Test func withoutIngestTheEndpointAnswers501() throws {
        let fixture = try APIFixture()
        var request = Self.handshake(["authorization": "Bearer \(fixture.aliceToken)"])
        request.path = "/v1/sessions/s/participants/alice/audio"
        let response = fixture.api.handle(request)
        #expect(response.status == 501)
        #expect(errorCode(response) == "not_implemented")
        request.headers["authorization"] = nil
        #expect(fixture.api.handle(request).status == 401)
    }
}
