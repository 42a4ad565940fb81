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

    public static let defaultListen = "127.0.0.1:8080"

    public init(listen: String = ServeSettings.defaultListen, store: String? = nil) {
        self.listen = listen
        self.store = store
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
