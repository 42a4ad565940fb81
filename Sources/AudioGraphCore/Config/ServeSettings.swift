/// The config's optional `serve` block: while `audiograph run` runs the pipeline, it also serves the HTTP API
/// (docs/http-api.md) with the session's live captions.
///
/// ```json
/// "serve": { "listen": "127.0.0.1:8080", "store": "out/transcripts.sqlite" }
/// ```
public struct ServeSettings: Sendable, Equatable {
    /// `HOST:PORT` to listen on; port 0 picks a free one. Default `127.0.0.1:8080`.
    public var listen: String
    /// The store whose transcripts and tokens the API serves, resolved against the config's folder. Default:
    /// the path of the graph's `transcript-store` node.
    public var store: String?
    /// What one client may hold of the server (`maxConnectionsPerAddress`, `headerTimeoutSeconds`,
    /// `idleTimeoutSeconds` in the block).
    public var limits: HTTPClientLimits

    public static let defaultListen = "127.0.0.1:8080"

    public init(listen: String = ServeSettings.defaultListen, store: String? = nil, limits: HTTPClientLimits = HTTPClientLimits()) {
        self.listen = listen
        self.store = store
        self.limits = limits
    }
}

/// How much of an HTTP server one client may hold, so that slow or idle connections from one address cannot
/// deny service to everyone else (docs/http-api.md, "Slow and idle clients").
public struct HTTPClientLimits: Sendable, Equatable {
    /// Connections open at once from one IP address; a further one is closed as soon as it is accepted. 0: no
    /// limit (behind a reverse proxy every connection comes from the proxy's address).
    public var maxConnectionsPerAddress: Int
    /// Seconds a connection has to send a whole request (request line, headers and any body), counted from when
    /// it opens or from when its previous answer was sent; past it the connection is closed.
    public var headerTimeoutSeconds: Int
    /// Seconds a connection may go without traffic while an answer is sent (a client that stopped reading).
    /// Caption streams are not cut by it: between events they wait suspended, which libmicrohttpd does not time
    /// out.
    public var idleTimeoutSeconds: Int

    public static let defaultMaxConnectionsPerAddress = 256
    public static let defaultHeaderTimeoutSeconds = 10
    public static let defaultIdleTimeoutSeconds = 30
    /// What each value may be: `maxConnectionsPerAddress` 0…1,000,000, the timeouts 1…3600 s.
    public static let connectionsRange = 0...1_000_000
    public static let timeoutRange = 1...3600

    public init(maxConnectionsPerAddress: Int = HTTPClientLimits.defaultMaxConnectionsPerAddress,
                headerTimeoutSeconds: Int = HTTPClientLimits.defaultHeaderTimeoutSeconds,
                idleTimeoutSeconds: Int = HTTPClientLimits.defaultIdleTimeoutSeconds) {
        self.maxConnectionsPerAddress = maxConnectionsPerAddress
        self.headerTimeoutSeconds = headerTimeoutSeconds
        self.idleTimeoutSeconds = idleTimeoutSeconds
    }
}

/// `HOST:PORT` with a dotted IPv4 host (`0.0.0.0` listens on every interface) and a port 0…65535.
public struct ListenAddress: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: UInt16
    /// The host's four bytes.
    public var octets: [UInt8]

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        let host = String(text[..<colon])
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var octets: [UInt8] = []
        for part in parts {
            guard part.count <= 3, part.allSatisfy(\.isASCII), let octet = UInt8(part) else { return nil }
            octets.append(octet)
        }
        self.host = host
        self.port = port
        self.octets = octets
    }

    public var description: String { "\(host):\(port)" }
}
