import AudioGraphCore

/// One HTTP request as the handler sees it: libmicrohttpd has parsed it (the path is percent-decoded, the
/// query split into items).
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded, without the query.
    public var path: String
    /// Query items in the order they came; a name may repeat.
    public var query: [(name: String, value: String)]
    /// Header fields by lower-cased name (the last one wins when a name repeats).
    public var headers: [String: String]
    /// The body, up to `HTTPRequest.maximumBody` bytes.
    public var body: [UInt8]
    /// The client sent more than `maximumBody` bytes: `body` holds none of it (answered 413).
    public var bodyTooLarge: Bool

    /// The most body the server keeps of one request (the control API's JSON bodies are a few dozen bytes).
    public static let maximumBody = 4096

    public init(method: String = "GET", path: String, query: [(name: String, value: String)] = [],
                headers: [String: String] = [:], body: [UInt8] = [], bodyTooLarge: Bool = false) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyTooLarge = bodyTooLarge
    }

    /// The values of query item `name`.
    public func queryValues(_ name: String) -> [String] {
        query.filter { $0.name == name }.map(\.value)
    }
}

/// What runs on a connection upgraded to a WebSocket: its delegate and its limits. If the upgrade never
/// happens (the client left before the 101 went out), the delegate's `ended()` is called all the same.
public struct WebSocketUpgrade: Sendable {
    public var delegate: any WebSocketDelegate
    public var limits: WebSocketLimits

    public init(delegate: any WebSocketDelegate, limits: WebSocketLimits = WebSocketLimits()) {
        self.delegate = delegate
        self.limits = limits
    }
}

/// An answer: a status, header fields, and a body of bytes or a stream of server-sent events.
public struct HTTPResponse: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        /// A `text/event-stream` that stays open until the stream is closed.
        case events(EventStream)
        /// The answer is `101 Switching Protocols` and the connection becomes a WebSocket run by the upgrade's
        /// delegate (the status and the handshake's headers are the handler's to set: `WebSocketHandshake`).
        case webSocket(WebSocketUpgrade)
    }

    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: Body

    /// The bytes of a `.bytes` body (0 for a stream).
    var bodySize: Int {
        if case .bytes(let bytes) = body { return bytes.count }
        return 0
    }

    public init(status: Int, headers: [(name: String, value: String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The body as text (empty for an event stream).
    public var text: String {
        if case .bytes(let bytes) = body { return String(decoding: bytes, as: UTF8.self) }
        return ""
    }

    /// The value of header `name` (case-insensitive).
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// A JSON answer (`Cache-Control: no-store`: the API's answers are per user).
    public static func json(_ value: JSONValue, status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8"),
                                               ("Cache-Control", "no-store")],
                     body: .bytes(Array(JSONWriter.compact(value).utf8)))
    }

    /// A JSON answer from an `Encodable` value.
    public static func json(encoded bytes: [UInt8], status: Int = 200) -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8"),
                                               ("Cache-Control", "no-store")], body: .bytes(bytes))
    }

    /// `{"error":{"code":…,"message":…}}` with the error's status; a 401 says `WWW-Authenticate: Bearer`.
    public static func error(_ error: APIError) -> HTTPResponse {
        var object: JSONObject = ["code": .string(error.code), "message": .string(error.message)]
        for (key, value) in error.details.entries { object[key] = value }
        var response = json(.object(["error": .object(object)]), status: error.status)
        if error.status == 401 { response.headers.append(("WWW-Authenticate", "Bearer")) }
        return response
    }
}
