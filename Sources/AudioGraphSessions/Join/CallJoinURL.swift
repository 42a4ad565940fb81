import AudioGraphCore
import Foundation

/// Where `audiograph join` sends: a live call's session URL, `http://HOST:PORT/v1/sessions/ID` (`ws://` is taken
/// too). The participant's audio goes to `…/participants/SPEAKER/audio`, the captions come from `…/captions`.
/// Plain HTTP only: TLS (`https://`, `wss://`) is not supported here (put the client next to the server, or
/// behind a tunnel).
public struct CallJoinURL: Sendable, Equatable {
    public var host: String
    public var port: Int
    public var sessionID: String

    /// Parses a session URL; a usage error (exit 64) at `location` that shows the form expected otherwise.
    public init(_ text: String, at location: String = "URL") throws(GraphError) {
        let form = "expects a session URL like http://127.0.0.1:8080/v1/sessions/standup"
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased() else {
            throw GraphError(.usage, at: location, "\(form), not \"\(text)\"")
        }
        guard scheme == "http" || scheme == "ws" else {
            if scheme == "https" || scheme == "wss" {
                throw GraphError(.usage, at: location, "\(scheme):// is not supported (no TLS in the client yet): use http:// to the "
                                 + "server itself, or a local tunnel to it")
            }
            throw GraphError(.usage, at: location, "\(form) (http:// or ws://), not \"\(text)\"")
        }
        guard let host = components.host, !host.isEmpty else { throw GraphError(.usage, at: location, "\(form): the host is missing") }
        guard components.query == nil, components.fragment == nil, components.user == nil else {
            throw GraphError(.usage, at: location, "\(form), without a query, fragment or user (the token goes in --token)")
        }
        let parts = components.percentEncodedPath.split(separator: "/", omittingEmptySubsequences: true)
        guard parts.count == 3, parts[0] == "v1", parts[1] == "sessions",
              let id = String(parts[2]).removingPercentEncoding, !id.isEmpty else {
            throw GraphError(.usage, at: location, "\(form), not \"\(text)\"")
        }
        self.host = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        port = components.port ?? 80
        guard (1...65535).contains(port) else { throw GraphError(.usage, at: location, "\(form): port \(port) is out of range") }
        sessionID = id
    }

    /// A path segment, percent-encoded (anything but unreserved characters).
    static func segment(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// `/v1/sessions/ID`.
    public var sessionPath: String { "/v1/sessions/" + Self.segment(sessionID) }

    /// The participant audio endpoint's path and query for `speaker` sending s16le in `format`.
    public func audioTarget(speaker: String, format: AudioFormat) -> String {
        sessionPath + "/participants/" + Self.segment(speaker)
            + "/audio?sampleRate=\(format.sampleRate)&channels=\(format.channels)&encoding=s16le"
    }

    /// The session's caption events (SSE).
    public var captionsTarget: String { sessionPath + "/captions" }

    /// `http://HOST:PORT/v1/sessions/ID`, for messages.
    public var description: String {
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostPart):\(port)\(sessionPath)"
    }
}
