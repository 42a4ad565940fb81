import AudioGraphCore
import AudioGraphWebSocket
import Foundation
import Synchronization

/// A caption a call's viewers see (`GET /v1/sessions/{id}/captions`, the `caption` events): who said it, the
/// text, and whether it is final.
public struct JoinCaption: Sendable, Equatable {
    public enum Kind: Sendable, Equatable { case partial, final, clear }
    public var kind: Kind
    public var speaker: String?
    public var segment: Int?
    /// Where it ends, in seconds of the speaker's stream (from their connection's first sample).
    public var end: Double?
    public var text: String

    /// From a caption event's data; nil for anything else.
    public init?(eventData: String) {
        guard let object = try? JSONSerialization.jsonObject(with: Data(eventData.utf8)) as? [String: Any],
              let type = object["type"] as? String else { return nil }
        switch type {
        case "partial": kind = .partial
        case "final": kind = .final
        case "clear": kind = .clear
        default: return nil
        }
        speaker = object["speaker"] as? String
        segment = (object["segment"] as? NSNumber)?.intValue
        end = (object["end"] as? NSNumber)?.doubleValue
        text = object["text"] as? String ?? ""
    }

    public init(kind: Kind, speaker: String?, segment: Int?, end: Double? = nil, text: String) {
        self.kind = kind
        self.speaker = speaker
        self.segment = segment
        self.end = end
        self.text = text
    }
}

/// Server-sent events, parsed line by line (the subset the server sends: `event:`, `data:`, `id:`, comments).
public struct ServerSentEventParser: Sendable {
    private var event = ""
    private var data: [String] = []
    private var partialLine: [UInt8] = []

    public init() {}

    /// Feeds bytes as they arrive; the complete events in them, as (event name, data).
    public mutating func feed(_ bytes: some Sequence<UInt8>) -> [(event: String, data: String)] {
        var events: [(event: String, data: String)] = []
        for byte in bytes {
            guard byte == UInt8(ascii: "\n") else {
                partialLine.append(byte)
                continue
            }
            var line = String(decoding: partialLine, as: UTF8.self)
            partialLine.removeAll(keepingCapacity: true)
            if line.hasSuffix("\r") { line.removeLast() }
            if line.isEmpty {
                if !data.isEmpty || !event.isEmpty {
                    events.append((event.isEmpty ? "message" : event, data.joined(separator: "\n")))
                }
                event = ""
                data = []
            } else if line.hasPrefix(":") {
                continue
            } else {
                let field = line.prefix { $0 != ":" }
                var value = line.dropFirst(field.count).dropFirst()
                if value.hasPrefix(" ") { value = value.dropFirst() }
                switch field {
                case "event": event = String(value)
                case "data": data.append(String(value))
                default: break
                }
            }
        }
        return events
    }
}

/// Reads a session's caption events on a thread of its own and hands each caption to a handler, until the
/// stream ends (`end`, the server going away) or `stop()`.
public final class CaptionEventReader: Sendable {
    private let connection: TCPConnection
    private let stopped = Mutex(false)
    private let finishedSignal = DispatchSemaphore(value: 0)

    private init(connection: TCPConnection) {
        self.connection = connection
    }

    /// Opens `GET target` with the bearer token and checks the answer is an event stream (200). Then reads on a
    /// thread of its own, calling `handler` with each caption (on that thread, in order).
    /// - Throws: `WebSocketClientError` (`.unreachable`, `.refused` with the status and API code, …).
    /// `ended` is called once when reading ends (the stream's `end`, the server gone, or `stop()`).
    public static func open(host: String, port: Int, target: String, token: String?, timeout: Double = 10,
                            answerTimeout: Double = 60, ended: @escaping @Sendable () -> Void = {},
                            handler: @escaping @Sendable (JoinCaption) -> Void) throws(WebSocketClientError) -> CaptionEventReader {
        let connection = try TCPConnection.connect(host: host, port: port, timeout: timeout)
        let deadline = TCPConnection.now() + answerTimeout
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        var request = "GET \(target) HTTP/1.1\r\nHost: \(hostHeader)\r\nAccept: text/event-stream\r\n"
        if let token { request += "Authorization: Bearer \(token)\r\n" }
        request += "\r\n"
        try connection.sendAll(Array(request.utf8), deadline: deadline)
        let head = try HTTPResponseHead.read(from: connection, deadline: deadline)
        guard head.status == 200 else {
            throw head.refusal(reading: connection, deadline: deadline, what: "the session's captions were refused")
        }
        let reader = CaptionEventReader(connection: connection)
        let chunked = head.headers["transfer-encoding"]?.lowercased().contains("chunked") ?? false
        let thread = Thread {
            reader.loop(chunked: chunked, handler: handler)
            ended()
        }
        thread.name = "audiograph-captions"
        thread.start()
        return reader
    }

    private func loop(chunked: Bool, handler: @Sendable (JoinCaption) -> Void) {
        defer {
            finishedSignal.signal()
        }
        var parser = ServerSentEventParser()
        var dechunker = ChunkedDecoder()
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        while !stopped.withLock({ $0 }) {
            let transfer = scratch.withUnsafeMutableBytes { connection.receive(into: $0) }
            switch transfer {
            case .closed: return
            case .wouldBlock:
                _ = connection.wait(read: true, write: false, deadline: TCPConnection.now() + 0.5)
            case .transferred(let count):
                let bytes = chunked ? dechunker.feed(scratch[..<count]) : Array(scratch[..<count])
                for event in parser.feed(bytes) {
                    if event.event == "end" { return }
                    if event.event == "caption", let caption = JoinCaption(eventData: event.data) { handler(caption) }
                }
            }
        }
    }

    /// Stops reading and waits for the reader's thread to end (at most a second); closes the connection.
    public func stop() {
        stopped.withLock { $0 = true }
        connection.shutdownNow()
        _ = finishedSignal.wait(timeout: .now() + 1)
        connection.close()
    }
}

/// HTTP/1.1 chunked transfer coding, undone as bytes arrive (trailers ignored).
struct ChunkedDecoder {
    private var remaining = 0
    private var sizeLine: [UInt8] = []
    /// Bytes of the CRLF after a chunk's data still to skip.
    private var skip = 0

    mutating func feed(_ bytes: some Sequence<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        for byte in bytes {
            if skip > 0 {
                skip -= 1
            } else if remaining > 0 {
                out.append(byte)
                remaining -= 1
                if remaining == 0 { skip = 2 }
            } else if byte == UInt8(ascii: "\n") {
                let text = String(decoding: sizeLine, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
                sizeLine = []
                remaining = Int(text.prefix { $0 != ";" }, radix: 16) ?? 0
            } else {
                sizeLine.append(byte)
            }
        }
        return out
    }
}
