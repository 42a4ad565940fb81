import AudioGraphCore
import Synchronization

/// `GET /metrics`: the Prometheus text (version 0.0.4) of whatever this process registered, rendered afresh for
/// every scrape. `audiograph serve` registers each live session's per-node statistics; batch workers their
/// totals and file counts (`MetricsServer`).
///
/// Each source adds its samples to the scrape's `PrometheusExposition`; sources run in the order they were
/// first registered, under no lock of this class (a source may take its own).
public final class MetricsEndpoint: Sendable {
    /// Adds a source's samples to a scrape.
    public typealias Source = @Sendable (inout PrometheusExposition) -> Void

    private let sources = Mutex<[(key: String, source: Source)]>([])

    public init() {}

    /// Registers `source` under `key`, replacing the source already there (in its place).
    public func set(_ key: String, _ source: @escaping Source) {
        sources.withLock { sources in
            if let index = sources.firstIndex(where: { $0.key == key }) {
                sources[index].source = source
            } else {
                sources.append((key, source))
            }
        }
    }

    /// Unregisters the source under `key`.
    public func remove(_ key: String) {
        sources.withLock { $0.removeAll { $0.key == key } }
    }

    /// The exposition now.
    public func text() -> String {
        var exposition = PrometheusExposition()
        for source in sources.withLock({ $0.map(\.source) }) { source(&exposition) }
        return exposition.text
    }

    /// The answer to `GET /metrics`: `text/plain; version=0.0.4`, never cached (libmicrohttpd leaves the body
    /// out for `HEAD`).
    public func response() -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", PrometheusExposition.contentType), ("Cache-Control", "no-store")],
                     body: .bytes(Array(text().utf8)))
    }
}

/// A small HTTP server that answers only `GET /metrics` (and `GET /health`) from a `MetricsEndpoint`: what
/// `audiograph worker --metrics-port` and `audiograph batch --metrics-port` listen with.
public final class MetricsServer: Sendable {
    public let endpoint: MetricsEndpoint
    private let daemon: HTTPDaemon

    /// Starts listening at `listen` (port 0: a free port) with `threads` worker threads.
    public init(listen: ListenAddress, endpoint: MetricsEndpoint = MetricsEndpoint(), threads: Int = 1) throws(HTTPServerError) {
        self.endpoint = endpoint
        daemon = try HTTPDaemon(address: listen, threads: threads) { request in
            Self.handle(request, endpoint: endpoint)
        }
    }

    /// `http://HOST:PORT`.
    public var baseURL: String { daemon.baseURL }
    public var port: UInt16 { daemon.port }

    static func handle(_ request: HTTPRequest, endpoint: MetricsEndpoint) -> HTTPResponse {
        var response: HTTPResponse
        if request.method != "GET" && request.method != "HEAD" {
            response = .error(.methodNotAllowed)
            response.headers.append(("Allow", "GET, HEAD"))
        } else if request.path == "/metrics" {
            response = endpoint.response()
        } else if request.path == "/health" {
            response = .json(["status": "ok", "version": .string(AudioGraphVersion.current)])
        } else {
            response = .error(.notFound("no such path; metrics are at /metrics"))
        }
        response.headers.append(("X-Content-Type-Options", "nosniff"))
        return response
    }

    /// Lets scrapes in flight finish (up to `timeout` seconds) and stops. Idempotent.
    public func shutdown(timeout: Double = 5) {
        daemon.shutdown(timeout: timeout)
    }
}
