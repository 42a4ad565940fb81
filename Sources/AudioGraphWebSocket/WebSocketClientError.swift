/// Why a WebSocket (or another request over `TCPConnection`) failed, as data: the kind says what a program does
/// about it (the CLI maps each to an exit status), the message is for people.
public struct WebSocketClientError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Kind: Sendable, Equatable {
        /// Nothing answered: the name does not resolve, the connection is refused or times out.
        case unreachable
        /// The server answered the request with an HTTP status instead of upgrading (401, 404, 409, …), with the
        /// API's error code when the body had one (`invalid_token`, `not_found`, …).
        case refused(status: Int, code: String?)
        /// The server's answer is not a valid WebSocket upgrade (not HTTP, a wrong `Sec-WebSocket-Accept`).
        case badHandshake
        /// The server closed the WebSocket with this code (RFC 6455 section 7.4).
        case closedByServer(code: UInt16)
        /// The connection ended without a close frame, or stalled.
        case connectionLost
    }

    public var kind: Kind
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }
}
