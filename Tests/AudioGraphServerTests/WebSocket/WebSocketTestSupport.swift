@testable import AudioGraphServer
import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// An in-memory `ParticipantAudioIngest`: the calls it knows (their access), and every stream opened, which
/// records its samples, its mute changes and its close.
final class FakeIngest: ParticipantAudioIngest {
    private let calls: Mutex<[String: ParticipantAudioAccess]>
    private let opened = Mutex<[FakeStream]>([])

    init(_ calls: [String: ParticipantAudioAccess]) { self.calls = Mutex(calls) }

    func access(sessionID: String) -> ParticipantAudioAccess? { calls.withLock { $0[sessionID] } }

    func openStream(sessionID: String, participant: String,
                    format: AudioFormat) throws(ParticipantAudioError) -> any ParticipantAudioStream {
        let stream = FakeStream(sessionID: sessionID, participant: participant, format: format)
        opened.withLock { $0.append(stream) }
        return stream
    }

    /// The streams opened so far, oldest first.
    var streams: [FakeStream] { opened.withLock { $0 } }

    /// The newest stream of `participant` in `sessionID`.
    func stream(_ sessionID: String, _ participant: String) -> FakeStream? {
        streams.last { $0.sessionID == sessionID && $0.participant == participant }
    }
}

final class FakeStream: ParticipantAudioStream {
    let sessionID: String
    let participant: String
    let format: AudioFormat
    private struct State {
        var samples: [Float] = []
        var mutes: [Bool] = []
        var closes = 0
        var writesAfterClose = 0
    }
    private let state = Mutex(State())

    init(sessionID: String, participant: String, format: AudioFormat) {
        self.sessionID = sessionID
        self.participant = participant
        self.format = format
    }

    func write(_ samples: [Float]) -> Bool {
        state.withLock { state in
            if state.closes > 0 { state.writesAfterClose += 1 }
            state.samples += samples
        }
        return true
    }

    func setMuted(_ muted: Bool) { state.withLock { $0.mutes.append(muted) } }
    func close() { state.withLock { $0.closes += 1 } }

    var samples: [Float] { state.withLock { $0.samples } }
    var mutes: [Bool] { state.withLock { $0.mutes } }
    var isClosed: Bool { state.withLock { $0.closes > 0 } }
    /// Closes counted (exactly one once it ended) and writes after the close (none).
    var closes: Int { state.withLock { $0.closes } }
    var writesAfterClose: Int { state.withLock { $0.writesAfterClose } }
}

/// A `TranscriptServer` on port 0 with a fake ingest of two calls, and tokens:
/// - "call": participants alice and bob, at most 2 streaming, `relay` may send for anyone;
/// - "other": participant carol, at most 16, `relay` may send for anyone.
final class CallsFixture: @unchecked Sendable {
    private let temporary: TemporaryFolder
    let store: SQLiteTranscriptStore
    let server: TranscriptServer
    let ingest: FakeIngest
    let tokens: [String: String]

    /// Messages above this close with 1009 (small, so a test can pass it cheaply).
    static let maxMessageBytes = 64 * 1024

    init(maxRealtimeFactor: Double = 1000, idleTimeoutSeconds: Double = 30) throws {
        temporary = try TemporaryFolder(prefix: "websocket-tests")
        store = try SQLiteTranscriptStore(path: temporary.path("transcripts.sqlite"))
        let access = AccessTokens(store: store)
        var tokens: [String: String] = [:]
        for user in ["alice", "bob", "carol", "relay"] { tokens[user] = try access.create(user: user).token }
        self.tokens = tokens
        ingest = FakeIngest([
            "call": ParticipantAudioAccess(participants: ["alice", "bob"], relays: ["relay"], maxParticipants: 2),
            "other": ParticipantAudioAccess(participants: ["carol"], relays: ["relay"]),
        ])
        let settings = ParticipantAudioSettings(maxRealtimeFactor: maxRealtimeFactor,
                                                limits: WebSocketLimits(maxMessageBytes: Self.maxMessageBytes,
                                                                        idleTimeoutSeconds: idleTimeoutSeconds))
        server = try TranscriptServer(store: store, listen: #require(ListenAddress("127.0.0.1:0")), threads: 2,
                                      participantAudio: ingest, participantAudioSettings: settings)
    }

    deinit {
        server.shutdown(timeout: 5)
        store.close()
    }

    func url(_ sessionID: String, _ participant: String, query: String = "") -> String {
        "ws://127.0.0.1:\(server.port)/v1/sessions/\(sessionID)/participants/\(participant)/audio" + (query.isEmpty ? "" : "?" + query)
    }

    /// A plan for `ws_client.py` sending `messages` as `user` (by `Authorization` header, or by subprotocol).
    func plan(_ sessionID: String, _ participant: String, as user: String, query: String = "", bySubprotocol: Bool = false,
              messages: [WebSocketMessage] = [], then: String = "close") -> [String: Any] {
        var plan: [String: Any] = ["url": url(sessionID, participant, query: query), "then": then,
                                   "messages": messages.map(\.json)]
        let token = tokens[user] ?? user
        if bySubprotocol {
            plan["subprotocols"] = ["audiograph", "bearer." + token]
        } else {
            plan["headers"] = ["Authorization": "Bearer " + token]
        }
        return plan
    }

    /// A plan sending `request` (the request line and headers, without the blank line) as raw bytes, then
    /// `after` once the answer's head is read.
    func rawPlan(_ head: String, after: [UInt8]? = nil) -> [String: Any] {
        var plan: [String: Any] = ["raw": head + "\r\n\r\n", "host": "127.0.0.1", "port": Int(server.port)]
        if let after { plan["after"] = Data(after).base64EncodedString() }
        return plan
    }

    /// A valid opening handshake for `path` (extra header lines appended), as raw text.
    func rawHandshake(_ path: String, token user: String = "relay", key: String? = "dGhlIHNhbXBsZSBub25jZQ==",
                      version: String = "13") -> String {
        var lines = ["GET \(path) HTTP/1.1", "Host: 127.0.0.1", "Upgrade: websocket", "Connection: Upgrade",
                     "Sec-WebSocket-Version: \(version)", "Authorization: Bearer \(tokens[user] ?? user)"]
        if let key { lines.append("Sec-WebSocket-Key: \(key)") }
        return lines.joined(separator: "\r\n")
    }
}

enum WebSocketMessage {
    case binary([UInt8])
    case text(String)

    var json: [String: String] {
        switch self {
        case .binary(let bytes): ["binary": Data(bytes).base64EncodedString()]
        case .text(let text): ["text": text]
        }
    }
}

/// `ws_client.py` run by /usr/bin/python3 (which has python3-websockets) as a child process.
final class WebSocketClient: Sendable {
    private let process: ChildProcess
    private let output: Pipe
    private let input: Pipe
    /// The plan, in a file: audio in the arguments would pass the system's limit.
    private let planFile: TemporaryFolder

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("ws_client.py").path

    init(_ plan: [String: Any]) throws {
        process = ChildProcess()
        output = Pipe()
        input = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        planFile = try TemporaryFolder(prefix: "websocket-plan")
        try JSONSerialization.data(withJSONObject: plan).write(to: planFile.url.appendingPathComponent("plan.json"))
        process.arguments = [Self.script, planFile.path("plan.json")]
        process.standardOutput = output
        process.standardInput = input
        try process.run()
    }

    /// Ends the client's stdin: a `hold` plan then closes cleanly.
    func endInput() { try? input.fileHandleForWriting.close() }

    /// Kills the client (SIGKILL): the connection vanishes without a close frame.
    func kill() { process.signal(SIGKILL) }

    /// Every event the client printed, once it has exited (its stdin ended first: a `hold` plan closes then).
    func events() async -> [[String: Any]] {
        endInput()
        _ = await process.exited()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
    }

    /// Runs `plan` to its end.
    static func run(_ plan: [String: Any]) async throws -> [[String: Any]] { try await WebSocketClient(plan).events() }
}

extension Array where Element == [String: Any] {
    /// The first event named `name`.
    func event(_ name: String) -> [String: Any]? { first { $0["event"] as? String == name } }
    /// The close code the client saw.
    var closeCode: Int? { event("closed")?["code"] as? Int }
    /// The head of a raw request's answer ("" when none came).
    var head: String { event("response")?["head"] as? String ?? "" }
    /// The HTTP status a refused handshake got.
    var refusedStatus: Int? { event("refused")?["status"] as? Int }
}

/// Test audio: `frames` frames of `channels` channels, as samples and as bytes of `encoding`.
func testAudio(frames: Int, channels: Int = 1, encoding: ParticipantAudioEncoding, seed: Int = 0) -> (samples: [Float], bytes: [UInt8]) {
    var samples: [Float] = []
    var bytes: [UInt8] = []
    for index in 0..<(frames * channels) {
        let raw = Int16(truncatingIfNeeded: (index + seed) &* 7919 % 65536 - 32768)
        switch encoding {
        case .s16le:
            samples.append(Float(raw) / 32768)
            withUnsafeBytes(of: raw.littleEndian) { bytes += $0 }
        case .f32le:
            let value = Float(raw) / 32768
            samples.append(value)
            withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes += $0 }
        }
    }
    return (samples, bytes)
}
