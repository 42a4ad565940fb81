import AudioGraphCore
import Foundation

/// How a participant's samples are laid out in binary messages: little-endian, interleaved.
public enum ParticipantAudioEncoding: String, Sendable, CaseIterable {
    /// 16-bit signed integers (the default).
    case s16le
    /// 32-bit IEEE floats, -1…1.
    case f32le

    public var bytesPerSample: Int { self == .s16le ? 2 : 4 }

    /// The samples of `bytes` as Float32; nil when a float is not finite (NaN, infinity). `bytes` holds whole
    /// samples.
    func decode(_ bytes: UnsafeRawBufferPointer) -> [Float]? {
        let count = bytes.count / bytesPerSample
        switch self {
        case .s16le:
            return (0..<count).map { Float(Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))) / 32768 }
        case .f32le:
            var samples = [Float](repeating: 0, count: count)
            for index in 0..<count {
                let sample = Float(bitPattern: UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: index * 4, as: UInt32.self)))
                guard sample.isFinite else { return nil }
                samples[index] = sample
            }
            return samples
        }
    }
}

/// What `GET /v1/sessions/{id}/participants/{participant}/audio` asks for, read from its path and query
/// (docs/calls.md, "Sending audio over a WebSocket"). Every failure is a 400 `bad_parameter` naming the
/// parameter.
public struct ParticipantAudioRequest: Sendable, Equatable {
    public var sessionID: String
    public var participant: String
    public var format: AudioFormat
    public var encoding: ParticipantAudioEncoding

    public static let sampleRates = 8000...48000
    public static let defaultSampleRate = 16000
    public static let channelCounts = 1...2
    /// The query parameters taken; any other is refused (a token in the URL above all: it would end up in logs).
    public static let parameters = ["sampleRate", "channels", "encoding"]

    /// The session id and participant of a path's segments after `/v1` (`sessions`, ID, `participants`, NAME,
    /// `audio`), or nil when the path is not this endpoint's.
    public static func route(_ segments: [String]) -> (sessionID: String, participant: String)? {
        guard segments.count == 5, segments[0] == "sessions", segments[2] == "participants", segments[4] == "audio" else {
            return nil
        }
        return (segments[1], segments[3])
    }

    /// Reads the query of `request` for session `sessionID`'s participant `participant`.
    public init(sessionID: String, participant: String, request: HTTPRequest) throws(APIError) {
        guard !sessionID.trimmingCharacters(in: .whitespaces).isEmpty else { throw .sessionIDMissing }
        guard !participant.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw .badParameter("participant: the path needs a participant name")
        }
        for item in request.query where !Self.parameters.contains(item.name) {
            let lowered = item.name.lowercased()
            if lowered.contains("token") || lowered.contains("auth") || lowered.contains("bearer") {
                throw .badParameter("\(item.name): a token is never taken from the URL; send Authorization: Bearer TOKEN "
                    + "or the subprotocol bearer.TOKEN")
            }
            throw .badParameter("\(item.name): unknown parameter; this endpoint takes " + Self.parameters.joined(separator: ", "))
        }
        let query = QueryParameters(request: request)
        let sampleRate = try query.integer("sampleRate", in: Self.sampleRates) ?? Self.defaultSampleRate
        let channels = try query.integer("channels", in: Self.channelCounts) ?? 1
        var encoding = ParticipantAudioEncoding.s16le
        if let text = try query.value("encoding") {
            guard let chosen = ParticipantAudioEncoding(rawValue: text) else {
                throw .badParameter("encoding must be s16le or f32le, got \"\(text)\"")
            }
            encoding = chosen
        }
        self.sessionID = sessionID
        self.participant = participant
        format = AudioFormat(sampleRate: sampleRate, channels: channels)
        self.encoding = encoding
    }

    /// The token a request carries: `Authorization: Bearer TOKEN`, else a `bearer.TOKEN` subprotocol (what a
    /// browser's `new WebSocket(url, ["audiograph", "bearer." + token])` sends); nil when it has neither.
    public static func token(of request: HTTPRequest, protocols: [String]) -> String? {
        if let header = request.headers["authorization"], !header.isEmpty {
            return header  // checked as the rest of the API checks it
        }
        return protocols.first { $0.hasPrefix("bearer.") }.map { "Bearer " + $0.dropFirst("bearer.".count) }
    }

    /// The subprotocol the server answers with: `audiograph` when the client offered it.
    public static let subprotocol = "audiograph"
}
