import Foundation

/// The status line and headers of an HTTP/1.1 answer, as a client reads them.
public struct HTTPResponseHead: Sendable, Equatable {
    public var status: Int
    /// Header values by lower-cased name (a repeated header: the values joined with ", ").
    public var headers: [String: String]

    /// Parses `text` (the head without its blank line, or with it). Nil when it is not an HTTP/1.x answer.
    public init?(_ text: String) {
        var lines = text.components(separatedBy: "\r\n")
        guard !lines.isEmpty else { return nil }
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]),
              (100...599).contains(status) else { return nil }
        self.status = status
        headers = [:]
        for line in lines where !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { return nil }
            let name = line[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = headers[name].map { $0 + ", " + value } ?? value
        }
    }

    /// Reads an answer's head from `connection` (by `deadline`); the bytes after it stay in the connection.
    public static func read(from connection: TCPConnection, deadline: Double) throws(WebSocketClientError) -> HTTPResponseHead {
        guard let bytes = try connection.read(through: Array("\r\n\r\n".utf8), limit: 16 * 1024, deadline: deadline) else {
            throw WebSocketClientError(.connectionLost, "the server closed the connection without answering")
        }
        guard let head = HTTPResponseHead(String(decoding: bytes, as: UTF8.self)) else {
            throw WebSocketClientError(.badHandshake, "the server's answer is not HTTP/1.1")
        }
        return head
    }

    /// The refusal an answer other than the one wanted stands for: its status and, from an API error body
    /// (`{"error":{"code":…,"message":…}}`, docs/http-api.md), the code and message. Reads the body (at most
    /// 64 KiB, by `deadline`).
    public func refusal(reading connection: TCPConnection, deadline: Double, what: String) -> WebSocketClientError {
        let length = min(Int(headers["content-length"] ?? "") ?? 0, 64 * 1024)
        let body = length > 0 ? connection.read(count: length, deadline: deadline) : []
        var code: String?
        var message = ""
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any],
           let error = object["error"] as? [String: Any] {
            code = error["code"] as? String
            message = error["message"] as? String ?? ""
        }
        var text = "\(what): the server answered \(status)"
        if let code { text += " \(code)" }
        if !message.isEmpty { text += ": \(message)" }
        return WebSocketClientError(.refused(status: status, code: code), text)
    }
}
