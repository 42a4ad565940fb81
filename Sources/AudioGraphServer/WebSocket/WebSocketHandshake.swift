import AudioGraphWebSocket
import Foundation

/// The server's side of the WebSocket opening handshake (RFC 6455 section 4.2): checks what the client sent and
/// computes the answer's `Sec-WebSocket-Accept`. A plain value, tested and fuzzed without a socket.
public struct WebSocketHandshake: Sendable, Equatable {
    /// The client's `Sec-WebSocket-Key` (base64 of 16 bytes).
    public var key: String
    /// The subprotocols the client offered (`Sec-WebSocket-Protocol`), in its order.
    public var protocols: [String]

    /// The one version this server speaks.
    public static let version = "13"

    /// A wrong `Sec-WebSocket-Version`: 426 with `Sec-WebSocket-Version: 13` (RFC 6455 section 4.4).
    public static let wrongVersion = APIError(status: 426, code: "upgrade_required",
                                              message: "this endpoint speaks WebSocket version 13 (Sec-WebSocket-Version: 13)")

    /// Checks `request`'s opening handshake: `GET`, `Upgrade: websocket`, `Connection` naming `upgrade`,
    /// `Sec-WebSocket-Version: 13` (else 426), and a `Sec-WebSocket-Key` of 16 bytes in base64. Every other
    /// failure is a 400 `bad_handshake` naming the header.
    public init(request: HTTPRequest) throws(APIError) {
        func bad(_ message: String) -> APIError { APIError(status: 400, code: "bad_handshake", message: message) }
        guard request.method == "GET" else { throw bad("a WebSocket opens with GET, not \(request.method)") }
        guard Self.tokens(request.headers["upgrade"]).contains("websocket") else {
            throw bad("this endpoint is a WebSocket: the request needs Upgrade: websocket")
        }
        guard Self.tokens(request.headers["connection"]).contains("upgrade") else {
            throw bad("the request needs Connection: Upgrade")
        }
        guard request.headers["sec-websocket-version"]?.trimmingCharacters(in: .whitespaces) == Self.version else {
            throw Self.wrongVersion
        }
        let key = (request.headers["sec-websocket-key"] ?? "").trimmingCharacters(in: .whitespaces)
        guard key.utf8.count == 24, Data(base64Encoded: key)?.count == 16 else {
            throw bad("Sec-WebSocket-Key must be 16 bytes in base64 (24 characters)")
        }
        self.key = key
        protocols = Self.protocols(of: request)
    }

    /// The subprotocols `request` offers (`Sec-WebSocket-Protocol`, comma-separated), in its order.
    public static func protocols(of request: HTTPRequest) -> [String] {
        (request.headers["sec-websocket-protocol"] ?? "").split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// `Sec-WebSocket-Accept`: base64 of SHA-1 of the key and the GUID.
    public var accept: String { Self.accept(key: key) }

    /// `Sec-WebSocket-Accept` for `key` (`WebSocketAccept`, which the client checks answers with too).
    public static func accept(key: String) -> String { WebSocketAccept.value(forKey: key) }

    /// The headers of the 101 answer: `Upgrade`, `Connection`, `Sec-WebSocket-Accept`, and the chosen
    /// subprotocol when there is one.
    public func answerHeaders(subprotocol: String?) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [("Upgrade", "websocket"), ("Connection", "Upgrade"),
                                                        ("Sec-WebSocket-Accept", accept)]
        if let subprotocol { headers.append(("Sec-WebSocket-Protocol", subprotocol)) }
        return headers
    }

    /// The comma-separated tokens of a header, lower-cased.
    private static func tokens(_ value: String?) -> [String] {
        (value ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
    }
}
