import AudioGraphCore
import AudioGraphServer
import AudioGraphStore
import FuzzSupport
import Synchronization

/// libFuzzer target `websocket`: the participant audio endpoint, from the request head to the frames.
///
/// The input is a request head (as in target `http`: `GET /v1/sessions/call/participants/alice/audio?… HTTP/1.1`,
/// header lines, `$ALICE`, `$RELAY` standing for tokens) up to an empty line; what follows is the byte stream
/// the client sends after the upgrade. The head goes through `TranscriptsAPI.handle` (token, handshake, query,
/// access, room); when it is answered 101 the rest is fed to the WebSocket's frame handling (wslay, through its
/// receive callback, in chunks whose sizes the stream's first byte picks) with an in-memory ingest.
///
/// Properties: a status from 100 to 599 with the API's headers; a 101 only with a valid handshake, its
/// `Sec-WebSocket-Accept` that of the key; a stream opened only on a 101 and closed exactly once by the end,
/// with nothing written after; samples finite, within -1…1 for s16le, in whole frames.
private struct Server {
    let api: TranscriptsAPI
    let ingest: FuzzIngest
    let tokens: [String: String]

    init() {
        let folder = Fuzz.temporaryFolder("websocket")
        let store = try! SQLiteTranscriptStore(path: folder + "/transcripts.sqlite")
        let access = AccessTokens(store: store)
        tokens = ["$ALICE": try! access.create(user: "alice").token, "$RELAY": try! access.create(user: "relay").token]
        ingest = FuzzIngest()
        let settings = ParticipantAudioSettings(maxRealtimeFactor: .infinity,
                                                limits: WebSocketLimits(maxMessageBytes: 4096, idleTimeoutSeconds: 1))
        api = TranscriptsAPI(store: store, tokens: access, live: LiveSessions(), publicURL: "http://127.0.0.1:9",
                             participantAudio: ingest, participantAudioSettings: settings)
    }
}

/// The call "call" (alice and bob; relay for anyone; 2 at once); streams that check what they are given.
private final class FuzzIngest: ParticipantAudioIngest {
    let opened = Mutex<[FuzzStream]>([])

    func access(sessionID: String) -> ParticipantAudioAccess? {
        sessionID == "call" ? ParticipantAudioAccess(participants: ["alice", "bob"], relays: ["relay"], maxParticipants: 2) : nil
    }

    func openStream(sessionID: String, participant: String,
                    format: AudioFormat) throws(ParticipantAudioError) -> any ParticipantAudioStream {
        if participant == "closed" { throw .notAccepting("the fuzzer's refusal") }
        let stream = FuzzStream(format: format)
        opened.withLock { $0.append(stream) }
        return stream
    }
}

private final class FuzzStream: ParticipantAudioStream {
    let format: AudioFormat
    let closes = Mutex(0)

    init(format: AudioFormat) { self.format = format }

    func write(_ samples: [Float]) -> Bool {
        Fuzz.expect(closes.withLock { $0 } == 0, "a write after the stream closed")
        Fuzz.expect(!samples.isEmpty && samples.count % format.channels == 0, "\(samples.count) samples for \(format)")
        Fuzz.expect(samples.allSatisfy { $0.isFinite }, "a sample that is not finite")
        return true
    }

    func setMuted(_ muted: Bool) { Fuzz.expect(closes.withLock { $0 } == 0, "muted after the stream closed") }
    func close() { closes.withLock { $0 += 1 } }
}

private let server = Server()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzWebSocket(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    let split = headEnd(bytes)
    guard let head = Fuzz.requestHead(String(decoding: bytes[..<split.head], as: UTF8.self), tokens: server.tokens) else {
        return 0
    }
    let request = HTTPRequest(method: head.method, path: head.path, query: head.query, headers: head.headers)
    let response = server.api.handle(request)
    Fuzz.expect((100...599).contains(response.status), "status \(response.status)")
    Fuzz.expect(response.header("X-Content-Type-Options") == "nosniff", "no nosniff header")
    let opened = server.ingest.opened.withLock { streams in defer { streams = [] }; return streams }
    guard case .webSocket(let upgrade) = response.body else {
        Fuzz.expect(opened.isEmpty, "a stream opened without an upgrade (\(response.status))")
        return 0
    }
    Fuzz.expect(response.status == 101 && opened.count == 1, "an upgrade answered \(response.status) with \(opened.count) streams")
    let handshake = try? WebSocketHandshake(request: request)
    Fuzz.expect(handshake != nil, "an upgrade of an invalid handshake")
    Fuzz.expect(response.header("Sec-WebSocket-Accept") == handshake?.accept, "a wrong Sec-WebSocket-Accept")
    let stream = Array(bytes[split.body...])
    let chunk = Int(stream.first ?? 0) % 32 + 1
    _ = WebSocketConnection.runInMemory(upgrade, input: stream, chunkSizes: [chunk, 2, chunk * 7, 1, 4096])
    Fuzz.expect(opened[0].closes.withLock { $0 } == 1, "the stream closed \(opened[0].closes.withLock { $0 }) times")
    return 0
}

/// Where the head ends (before the first empty line) and the stream begins (after it).
private func headEnd(_ bytes: [UInt8]) -> (head: Int, body: Int) {
    var index = 0
    while index + 1 < bytes.count {
        if bytes[index] == 10, bytes[index + 1] == 10 { return (index, index + 2) }
        if index + 3 < bytes.count, bytes[index...index + 3].elementsEqual([13, 10, 13, 10]) { return (index, index + 4) }
        index += 1
    }
    return (bytes.count, bytes.count)
}
