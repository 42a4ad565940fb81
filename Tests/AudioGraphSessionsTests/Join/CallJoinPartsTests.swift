/// The pieces of `audiograph join` that need no call: the session URL, the caption events as bytes arrive
/// (whole and one byte at a time), chunked transfer coding, the s16le encoding, and the WebSocket client against
/// servers that answer wrongly.
import AudioGraph
@testable import AudioGraphSessions
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

struct CallJoinURLTests {
    @Test func sessionURLs() throws {
        let url = try CallJoinURL("http://127.0.0.1:8080/v1/sessions/standup")
        #expect(url.host == "127.0.0.1" && url.port == 8080 && url.sessionID == "standup")
        #expect(url.audioTarget(speaker: "alice", format: AudioFormat(sampleRate: 44100, channels: 2))
            == "/v1/sessions/standup/participants/alice/audio?sampleRate=44100&channels=2&encoding=s16le")
        #expect(url.captionsTarget == "/v1/sessions/standup/captions")
        let odd = try CallJoinURL("ws://localhost/v1/sessions/a%20b/")
        #expect(odd.port == 80 && odd.sessionID == "a b" && odd.sessionPath == "/v1/sessions/a%20b")
        #expect(odd.audioTarget(speaker: "zoë/x", format: AudioFormat(sampleRate: 16000, channels: 1))
            .hasPrefix("/v1/sessions/a%20b/participants/zo%C3%AB%2Fx/audio?"))
        let v6 = try CallJoinURL("http://[::1]:9/v1/sessions/s")
        #expect(v6.host == "::1" && v6.description == "http://[::1]:9/v1/sessions/s")
    }

    @Test func badURLsAreUsageErrors() {
        for text in ["", "127.0.0.1:8080/v1/sessions/x", "https://h/v1/sessions/x", "wss://h/v1/sessions/x", "ftp://h/v1/sessions/x",
                     "http:///v1/sessions/x", "http://h/v1/sessions", "http://h/v1/sessions/x/captions", "http://h/v1/sessions/x?token=t",
                     "http://u@h/v1/sessions/x", "http://h:0/v1/sessions/x"] {
            #expect(throws: GraphError.self, "\(text)") { try CallJoinURL(text) }
            do { _ = try CallJoinURL(text) } catch { #expect(error.code == .usage, "\(text): \(error)") }
        }
    }
}

struct CaptionEventsParsingTests {
    static let stream = "retry: 2000\n\nevent: state\ndata: {\"transcribing\":true}\n\n: keepalive\n\n"
        + "event: caption\nid: 7\ndata: {\"type\":\"partial\",\"segment\":3,\"text\":\"go\",\"speaker\":\"alice\"}\n\n"
        + "event: caption\r\nid: 8\r\ndata: {\"type\":\"final\",\"segment\":3,\"end\":2.9,\"text\":\"go forward\",\"speaker\":\"alice\"}\r\n\r\n"
        + "event: end\ndata: {}\n\n"

    static func parse(_ chunks: [ArraySlice<UInt8>]) -> [String] {
        var parser = ServerSentEventParser()
        return chunks.flatMap { parser.feed($0) }.map { "\($0.event) \($0.data)" }
    }

    @Test func wholeAndByteByByteGiveTheSameEvents() {
        let bytes = Array(Self.stream.utf8)
        let whole = Self.parse([bytes[...]])
        let single = Self.parse(bytes.indices.map { bytes[$0...$0] })
        #expect(whole == single)
        #expect(whole.map { $0.split(separator: " ").first.map(String.init) ?? "" } == ["state", "caption", "caption", "end"])
        let final = JoinCaption(eventData: String(whole[2].dropFirst("caption ".count)))
        #expect(final == JoinCaption(kind: .final, speaker: "alice", segment: 3, end: 2.9, text: "go forward"))
        #expect(JoinCaption(eventData: "{\"type\":\"clear\"}")?.kind == .clear)
        #expect(JoinCaption(eventData: "{\"type\":\"other\"}") == nil && JoinCaption(eventData: "not json") == nil)
    }

    @Test func chunkedCodingIsUndoneAsBytesArrive() {
        let body = Array("5\r\nhello\r\n7;x=y\r\n, world\r\n0\r\n\r\n".utf8)
        var whole = ChunkedDecoder()
        #expect(String(decoding: whole.feed(body), as: UTF8.self) == "hello, world")
        var single = ChunkedDecoder()
        let out = body.flatMap { single.feed([$0]) }
        #expect(String(decoding: out, as: UTF8.self) == "hello, world")
    }

    @Test func samplesAsS16LE() {
        var bytes = [UInt8](repeating: 0, count: 10)
        CallJoin.encode([0, 1, -1, 2, .nan], count: 5, into: &bytes)
        #expect(bytes == [0, 0, 0xFF, 0x7F, 0x01, 0x80, 0xFF, 0x7F, 0, 0])
        #expect(CallJoin.isVoiced([0.1, -0.1], count: 2) && !CallJoin.isVoiced([0.001, 0], count: 2))
    }
}

struct JoinFileSourceTests {
    static func wav(_ dir: TemporaryFolder, _ name: String, sampleRate: Int, channels: Int, frames: [[Float]]) throws -> String {
        let path = dir.path(name)
        let writer = try SoundFileWriter(path: path, sampleRate: sampleRate, channels: channels, container: .wav, sampleFormat: .float)
        let samples = frames.flatMap { $0 }
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
        return path
    }

    @Test func moreThanTwoChannelsAreMixedToMono() throws {
        let dir = try TemporaryFolder()
        let path = try Self.wav(dir, "three.wav", sampleRate: 16000, channels: 3, frames: [[0.3, 0.0, 0.3], [-0.6, 0.0, 0.0]])
        let source = try JoinFileSource(path: path)
        defer { source.close() }
        #expect(source.format == AudioFormat(sampleRate: 16000, channels: 1))
        var buffer = [Float](repeating: 9, count: 8)
        let frames = try buffer.withUnsafeMutableBufferPointer { try source.read(into: $0, maxFrames: 8) }
        #expect(frames == 2)
        #expect(abs(buffer[0] - 0.2) < 1e-6 && abs(buffer[1] + 0.2) < 1e-6, "\(buffer)")
        let stereo = try JoinFileSource(path: try Self.wav(dir, "two.wav", sampleRate: 48000, channels: 2, frames: [[0.1, 0.2]]))
        #expect(stereo.format == AudioFormat(sampleRate: 48000, channels: 2))
        stereo.close()
    }

    @Test func aRateTheCallDoesNotTakeAndMissingFiles() throws {
        let dir = try TemporaryFolder()
        let high = try Self.wav(dir, "high.wav", sampleRate: 96000, channels: 1, frames: [[0]])
        #expect(throws: GraphError(.invalidConfig, at: high, "its sample rate is 96000 Hz; a call takes 8000 to 48000 Hz (resample it first)")) {
            _ = try JoinFileSource(path: high)
        }
        do {
            _ = try JoinFileSource(path: dir.path("missing.wav"))
            Issue.record("a missing file opened")
        } catch {
            #expect(error.code == .missingInput && error.location == dir.path("missing.wav"), "\(error)")
        }
    }
}

/// A one-connection server on 127.0.0.1 that reads a request head and answers `answer`, on a thread of its own.
final class OneAnswerServer: Sendable {
    let port: UInt16
    private let fd: Int32
    let request = Mutex("")

    init(answer: String) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let fd = fd
        port = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> UInt16 in
                _ = bind(fd, raw, length)
                _ = getsockname(fd, raw, &length)
                return UInt16(bigEndian: pointer.pointee.sin_port)
            }
        }
        guard listen(fd, 1) == 0 else { throw HarnessFailure("listen failed") }
        Thread.detachNewThread { [self] in
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            var data: [UInt8] = []
            var byte: UInt8 = 0
            while recv(client, &byte, 1, 0) == 1 {
                data.append(byte)
                if data.count >= 4, Array(data.suffix(4)) == Array("\r\n\r\n".utf8) { break }
            }
            request.withLock { $0 = String(decoding: data, as: UTF8.self) }
            let bytes = Array(answer.utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            shutdown(client, Int32(SHUT_WR))
            while recv(client, &byte, 1, 0) == 1 {}
            close(client)
        }
    }

    deinit { close(fd) }
}

struct HarnessFailure: Error {
    var text: String
    init(_ text: String) { self.text = text }
}

struct WebSocketClientHandshakeTests {
    @Test func aWrongAcceptIsABadHandshake() throws {
        let server = try OneAnswerServer(answer: "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                                         + "Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n\r\n")
        #expect(throws: WebSocketClientError(.badHandshake, "the server's Sec-WebSocket-Accept does not match the key sent")) {
            _ = try WebSocketClient.connect(host: "127.0.0.1", port: Int(server.port), target: "/x", headers: [("Authorization", "Bearer t")])
        }
        let request = server.request.withLock { $0 }
        #expect(request.hasPrefix("GET /x HTTP/1.1\r\n") && request.contains("Sec-WebSocket-Version: 13\r\n")
            && request.contains("Authorization: Bearer t\r\n") && request.contains("Upgrade: websocket\r\n"), "\(request)")
    }

    @Test func notHTTPAndRefusalsAreTold() throws {
        let notHTTP = try OneAnswerServer(answer: "SSH-2.0-OpenSSH\r\n\r\n")
        #expect(throws: WebSocketClientError(.badHandshake, "the server's answer is not HTTP/1.1")) {
            _ = try WebSocketClient.connect(host: "127.0.0.1", port: Int(notHTTP.port), target: "/x")
        }
        let body = #"{"error":{"code":"already_streaming","message":"alice is sending audio to this session already"}}"#
        let refused = try OneAnswerServer(answer: "HTTP/1.1 409 Conflict\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        #expect(throws: WebSocketClientError(.refused(status: 409, code: "already_streaming"),
                                             "the WebSocket upgrade was refused: the server answered 409 already_streaming: "
                                                + "alice is sending audio to this session already")) {
            _ = try WebSocketClient.connect(host: "127.0.0.1", port: Int(refused.port), target: "/x")
        }
        let silent = try OneAnswerServer(answer: "")
        #expect(throws: WebSocketClientError(.connectionLost, "the server closed the connection without answering")) {
            _ = try WebSocketClient.connect(host: "127.0.0.1", port: Int(silent.port), target: "/x")
        }
    }

    @Test func theAcceptKeyOfRFC6455() {
        #expect(WebSocketAccept.value(forKey: "dGhlIHNhbXBsZSBub25jZQ==") == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
        let key = WebSocketAccept.newKey()
        #expect(Data(base64Encoded: key)?.count == 16 && key != WebSocketAccept.newKey())
    }
}
