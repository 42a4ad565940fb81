@_exported import AudioGraphStoreModel
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Synchronization

/// A connection to an `audiograph serve`: its base URL, the bearer token to send, a per-request timeout, and
/// a URLSession of its own. Requests (`RemoteTranscriptsRequest`) take one with `.client(_:)`, or use the
/// process default (`TranscriptsClients.bootstrap`).
///
/// ```swift
/// let client = TranscriptsClient(baseURL: URL(string: "http://127.0.0.1:8080")!, bearerToken: token)
/// let request = RemoteTranscriptsRequest.Builder().sessionId("standup").client(client).build()
/// let page1 = try await request.fetchNext()
/// ```
///
/// Thread-safe (`Sendable`); one client serves any number of requests at once. Its session is ephemeral (no
/// cache, no cookies) and is invalidated when the client goes away.
public final class TranscriptsClient: Sendable {
    /// The default `requestTimeout`, in seconds.
    public static let defaultRequestTimeout: TimeInterval = 30

    /// Where the server is: `http://HOST:PORT`, optionally with a path prefix (`http://HOST/audiograph`); the
    /// API paths (`/v1/…`) go after it. Only `http` and `https` URLs can be used.
    public let baseURL: URL
    /// The token sent as `Authorization: Bearer TOKEN` (`audiograph tokens create`). Surrounding whitespace
    /// is ignored; nil or empty makes every fetch fail with `noAuthToken` before anything is sent.
    public let bearerToken: String?
    /// Seconds a request may wait for the server (connecting, then between bytes) before it fails with
    /// `networkUnavailable`.
    public let requestTimeout: TimeInterval

    let session: URLSession

    /// A client of the server at `baseURL`, authenticating with `bearerToken`.
    public init(baseURL: URL, bearerToken: String?, requestTimeout: TimeInterval = TranscriptsClient.defaultRequestTimeout) {
        self.baseURL = baseURL
        self.bearerToken = bearerToken
        self.requestTimeout = requestTimeout
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = requestTimeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        session = URLSession(configuration: configuration)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The trimmed token, or nil when there is none to send.
    var token: String? {
        guard let token = bearerToken?.trimmingCharacters(in: .whitespacesAndNewlines), !token.isEmpty else { return nil }
        return token
    }

    /// `GET {base}/v1/sessions/{id}/transcripts?after=CURSOR&limit=N` (no `after` for the first page).
    func transcriptsURL(sessionId: String, after: Int64?, limit: Int) -> URL? {
        guard var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: true),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https",
              components.host?.isEmpty == false else { return nil }
        var prefix = components.percentEncodedPath
        while prefix.hasSuffix("/") { prefix.removeLast() }
        components.percentEncodedPath = prefix + "/v1/sessions/" + Self.pathSegment(sessionId) + "/transcripts"
        components.percentEncodedQuery = (after.map { "after=\($0)&" } ?? "") + "limit=\(limit)"
        components.fragment = nil
        return components.url
    }

    /// `text` as one percent-encoded path segment: everything but the unreserved characters is encoded, and a
    /// segment of only dots (`.`, `..`) is encoded too so it is not taken as a relative path.
    static func pathSegment(_ text: String) -> String {
        if text.allSatisfy({ $0 == "." }) { return String(repeating: "%2E", count: text.count) }
        return text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// Sends a GET with the bearer token and answers the status and body. Fails with `noAuthToken` (nothing
    /// sent), `networkUnavailable` (the URL cannot be used, or the server cannot be reached) or
    /// `malformedResponse` (an answer that is not HTTP).
    func get(_ url: URL) async throws(TranscriptsError) -> (status: Int, body: Data) {
        guard let token else { throw .noAuthToken }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: requestTimeout)
        request.httpMethod = "GET"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: request)
        } catch {
            throw Self.transportError(error, url: url, timeout: requestTimeout)
        }
        guard let http = response as? HTTPURLResponse else {
            throw .malformedResponse("not an HTTP answer from \(Self.origin(url))")
        }
        return (http.statusCode, data)
    }

    /// A URLSession failure as a `TranscriptsError`: `malformedResponse` when the server answered something that
    /// is not HTTP, else `networkUnavailable` (refused, timed out, lost, closed without an answer, host not found,
    /// cancelled, …). The detail names the server and, when URLSession gives one, its reason.
    static func transportError(_ error: any Error, url: URL, timeout: TimeInterval) -> TranscriptsError {
        let place = origin(url)
        let code: URLError.Code
        if let urlError = error as? URLError {
            code = urlError.code
        } else {
            let nsError = error as NSError
            guard nsError.domain == NSURLErrorDomain else {
                return .networkUnavailable("\(place): \(error.localizedDescription)")
            }
            code = URLError.Code(rawValue: nsError.code) ?? .unknown
        }
        let reason = error.localizedDescription
        switch code {
        case .cannotConnectToHost:
            return .networkUnavailable("cannot connect to \(place) (connection refused or unreachable)")
        case .timedOut:
            return .networkUnavailable("\(place) did not answer within \(formatted(timeout)) s")
        case .networkConnectionLost:
            return .networkUnavailable("the connection to \(place) was lost")
        case .badServerResponse, .zeroByteResource:
            // What URLSession on Linux reports when the server closes the connection without an answer.
            return .networkUnavailable("\(place) closed the connection without an answer")
        case .cannotFindHost, .dnsLookupFailed:
            return .networkUnavailable("cannot find the host of \(place)")
        case .notConnectedToInternet:
            return .networkUnavailable("not connected to a network (\(place))")
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .serverCertificateHasUnknownRoot:
            return .networkUnavailable("no secure connection to \(place): \(reason)")
        case .cancelled:
            return .networkUnavailable("the request to \(place) was cancelled")
        case .unsupportedURL, .cannotParseResponse, .cannotDecodeRawData, .cannotDecodeContentData:
            // unsupportedURL: the answer was not HTTP/1.x (the URL itself was checked before sending).
            return .malformedResponse("\(place) did not answer HTTP: \(reason)")
        default:
            return .networkUnavailable("\(place): \(reason)")
        }
    }

    /// `http://host:port` of a URL, for messages.
    static func origin(_ url: URL) -> String {
        var components = URLComponents()
        components.scheme = url.scheme
        components.host = url.host
        components.port = url.port
        return components.string ?? url.absoluteString
    }

    private static func formatted(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}

/// The process-wide default client that remote requests built without `.client(_:)` use (the same bootstrap
/// pattern as `TranscriptStores`). Tests and embedders give a client explicitly instead.
public enum TranscriptsClients {
    private static let storage = Mutex<TranscriptsClient?>(nil)

    /// Sets (or with nil, clears) the default client.
    public static func bootstrap(_ client: TranscriptsClient?) {
        storage.withLock { $0 = client }
    }

    /// The default client, if one was bootstrapped.
    public static var current: TranscriptsClient? {
        storage.withLock { $0 }
    }
}
