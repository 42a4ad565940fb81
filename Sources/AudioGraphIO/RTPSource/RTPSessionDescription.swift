import Foundation

/// What `rtp-source` needs from an SDP file (RFC 4566), read before FFmpeg sees it so that a wrong file is a
/// config error at build time (`audiograph validate`), with a message that says what is wrong, instead of
/// FFmpeg's "Invalid data found when processing input" when the graph starts.
///
/// Only the first `m=audio` section is used, and of its payload types the first one this node decodes.
struct RTPSessionDescription: Equatable, Sendable {
    /// The codecs `rtp-source` decodes, by their RTP encoding names.
    enum Codec: String, Sendable, CaseIterable {
        case opus, pcmu, pcma, l16

        /// The name as SDP and people write it.
        var displayName: String {
            switch self {
            case .opus: return "Opus"
            case .pcmu: return "PCMU"
            case .pcma: return "PCMA"
            case .l16: return "L16"
            }
        }
    }

    /// The UDP port the audio arrives on (RTCP uses the next one).
    var port: Int
    /// The connection address (`c=`), the sender's or ours.
    var address: String
    var payloadType: Int
    var codec: Codec
    /// The RTP clock rate, which is the sample rate for every codec here (Opus: always 48000).
    var clockRate: Int
    var channels: Int

    /// "Opus 48000 Hz 2 ch, payload 97, port 5004".
    var summary: String {
        "\(codec.displayName) \(clockRate) Hz \(channels) ch, payload \(payloadType), UDP port \(port)"
    }

    struct Malformed: Error, Equatable {
        var reason: String
    }

    /// Parses `text`; throws `Malformed` with a reason a person can act on.
    init(parsing text: String) throws(Malformed) {
        var address: String?
        var media: (port: Int, payloads: [Int])?
        var rtpmaps: [Int: (name: String, rate: Int, channels: Int)] = [:]
        var sawVersion = false
        // Where the lines are: before any m= line, in the audio section used, or in another section.
        var inOtherSection = false
        for rawLine in text.split(whereSeparator: \.isNewline) {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty { continue }
            guard line.count >= 2, line[line.index(after: line.startIndex)] == "=" else {
                throw Malformed(reason: "\"\(line.prefix(40))\" is not an SDP line (type=value)")
            }
            let value = String(line.dropFirst(2))
            switch line.first {
            case "v": sawVersion = true
            case "c":
                // c=IN IP4 127.0.0.1 — the session's, or the audio section's (which wins).
                let fields = value.split(separator: " ")
                guard fields.count >= 3 else {
                    throw Malformed(reason: "\"c=\(value)\" needs a network, type and address")
                }
                if !inOtherSection { address = String(fields[2].split(separator: "/")[0]) }
            case "m":
                let fields = value.split(separator: " ")
                inOtherSection = media != nil || fields.first != "audio"
                if inOtherSection { continue }
                guard fields.count >= 4, let port = Int(fields[1].split(separator: "/")[0]), (1...65534).contains(port)
                else {
                    throw Malformed(reason: "\"m=\(value)\" needs a port (1-65534: RTCP takes the next one), a "
                        + "protocol and payload types")
                }
                guard fields[2].hasPrefix("RTP/") else {
                    throw Malformed(reason: "\"m=\(value)\" is not RTP (protocol \(fields[2]))")
                }
                let payloads = fields[3...].compactMap { Int($0) }
                guard payloads.count == fields.count - 3, payloads.allSatisfy({ (0...127).contains($0) }) else {
                    throw Malformed(reason: "\"m=\(value)\" has a payload type that is not a number from 0 to 127")
                }
                media = (port, payloads)
            case "a" where value.hasPrefix("rtpmap:") && !inOtherSection:
                // a=rtpmap:97 opus/48000/2
                let fields = value.dropFirst("rtpmap:".count).split(separator: " ", maxSplits: 1)
                guard fields.count == 2, let payload = Int(fields[0]) else {
                    throw Malformed(reason: "\"a=\(value)\" should read rtpmap:<payload> <codec>/<rate>[/<channels>]")
                }
                let parts = fields[1].split(separator: "/")
                guard parts.count >= 2, let rate = Int(parts[1]), rate > 0,
                      let channels = parts.count > 2 ? Int(parts[2]) : 1, (1...8).contains(channels) else {
                    throw Malformed(reason: "\"a=\(value)\" should read rtpmap:<payload> <codec>/<rate>[/<channels>]")
                }
                rtpmaps[payload] = (String(parts[0]).lowercased(), rate, channels)
            default: break
            }
        }
        guard sawVersion else { throw Malformed(reason: "no \"v=0\" line: this is not an SDP file") }
        guard let media else { throw Malformed(reason: "no audio (\"m=audio <port> RTP/AVP <payload types>\" line)") }
        guard let address else { throw Malformed(reason: "no connection address (\"c=IN IP4 <address>\" line)") }
        // Static payload types (RFC 3551) need no rtpmap.
        let staticTypes: [Int: (Codec, Int, Int)] = [0: (.pcmu, 8000, 1), 8: (.pcma, 8000, 1),
                                                       10: (.l16, 44100, 2), 11: (.l16, 44100, 1)]
        var offered: [String] = []
        for payload in media.payloads {
            if let map = rtpmaps[payload] {
                if let codec = Codec(rawValue: map.name) {
                    self.init(port: media.port, address: address, payloadType: payload, codec: codec,
                              clockRate: map.rate, channels: map.channels)
                    return
                }
                offered.append(map.name)
            } else if let known = staticTypes[payload] {
                self.init(port: media.port, address: address, payloadType: payload, codec: known.0,
                          clockRate: known.1, channels: known.2)
                return
            } else {
                offered.append(payload >= 96 ? "payload \(payload) without an a=rtpmap line" : "payload \(payload)")
            }
        }
        throw Malformed(reason: "no codec rtp-source decodes (it decodes "
            + Codec.allCases.map(\.displayName).joined(separator: ", ") + "; the SDP offers "
            + offered.joined(separator: ", ") + ")")
    }

    init(port: Int, address: String, payloadType: Int, codec: Codec, clockRate: Int, channels: Int) {
        self.port = port
        self.address = address
        self.payloadType = payloadType
        self.codec = codec
        self.clockRate = clockRate
        self.channels = channels
    }
}
