import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing
@testable import AudioGraphIO
#if canImport(Glibc)
import Glibc
#endif

/// Real RTP for the `rtp-source` tests: free UDP ports, SDP files, an `ffmpeg -re … -f rtp` sender, and a relay
/// that loses packets on purpose.
enum RTPTestSupport {
    enum Codec {
        case opus, pcmu, pcma, l16(sampleRate: Int)

        /// The SDP a sender of this codec is described by (as `ffmpeg -sdp_file` writes it).
        func sdp(port: Int) -> String {
            let media: String
            switch self {
            case .opus: media = "m=audio \(port) RTP/AVP 97\na=rtpmap:97 opus/48000/2\na=fmtp:97 sprop-stereo=1"
            case .pcmu: media = "m=audio \(port) RTP/AVP 0"
            case .pcma: media = "m=audio \(port) RTP/AVP 8"
            case .l16(let rate): media = "m=audio \(port) RTP/AVP 97\na=rtpmap:97 L16/\(rate)/1"
            }
            return "v=0\no=- 0 0 IN IP4 127.0.0.1\ns=test\nc=IN IP4 127.0.0.1\nt=0 0\n\(media)\n"
        }

        /// ffmpeg's encoder arguments for this codec.
        var encoder: [String] {
            switch self {
            case .opus: return ["-c:a", "libopus", "-ar", "48000", "-ac", "2", "-payload_type", "97"]
            case .pcmu: return ["-c:a", "pcm_mulaw", "-ar", "8000", "-ac", "1"]
            case .pcma: return ["-c:a", "pcm_alaw", "-ar", "8000", "-ac", "1"]
            case .l16(let rate): return ["-c:a", "pcm_s16be", "-ar", "\(rate)", "-ac", "1", "-payload_type", "97"]
            }
        }
    }

    /// `ffmpeg -re -i INPUT … -f rtp rtp://127.0.0.1:PORT`: sends `input` at 1x. `exitedAt` is set (monotonic
    /// seconds) when it ends; `stop` ends it if it still runs.
    final class Sender: Sendable {
        let process = ChildProcess()
        private let exit = Mutex<Double?>(nil)

        init(_ input: String, codec: Codec, port: Int) throws {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", input] + codec.encoder
                + ["-f", "rtp", "rtp://127.0.0.1:\(port)"]
            process.standardInput = FileHandle.nullDevice
            process.standardOutput = nil
            process.standardError = nil
            process.terminationHandler = { [weak self] _ in self?.exit.withLock { $0 = monotonicSeconds() } }
            try process.run()
        }

        /// When ffmpeg exited, in `monotonicSeconds`; nil while it runs.
        var exitedAt: Double? { exit.withLock { $0 } }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    /// Forwards UDP datagrams from `inputPort` to `outputPort` on 127.0.0.1, dropping every `dropEvery`-th:
    /// packet loss on purpose. Bound when `init` returns, so a sender may start at once.
    final class LossyRelay: Sendable {
        let inputPort: Int
        private let socket: Int32
        private let stopped = Atomic<Bool>(false)
        private let done = Mutex<Bool>(false)
        private let dropped = Atomic<Int>(0)

        init(to outputPort: Int, dropEvery: Int) throws {
            guard let bound = UDPPorts.bind(0, address: INADDR_LOOPBACK) else { throw RelayError() }
            socket = bound.socket
            inputPort = bound.port
            var wait = timeval(tv_sec: 0, tv_usec: 50_000)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &wait, socklen_t(MemoryLayout<timeval>.size))
            let thread = Thread { [self] in
                var destination = sockaddr_in()
                destination.sin_family = sa_family_t(AF_INET)
                destination.sin_port = in_port_t(UInt16(outputPort).bigEndian)
                destination.sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
                var buffer = [UInt8](repeating: 0, count: 65536)
                var count = 0
                while !self.stopped.load(ordering: .relaxed) {
                    let received = recv(self.socket, &buffer, buffer.count, 0)
                    guard received > 0 else { continue }
                    count += 1
                    if count % dropEvery == 0 {
                        self.dropped.add(1, ordering: .relaxed)
                        continue
                    }
                    _ = withUnsafePointer(to: &destination) {
                        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                            sendto(self.socket, buffer, received, 0, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                        }
                    }
                }
                self.done.withLock { $0 = true }
            }
            thread.start()
        }

        var droppedPackets: Int { dropped.load(ordering: .relaxed) }

        /// Stops the relay thread and closes its socket.
        func stop() {
            stopped.store(true, ordering: .relaxed)
            _ = blockingEventually { done.withLock { $0 } }
            close(socket)
        }

        struct RelayError: Error {}
    }

    /// Seconds on the monotonic clock.
    static func monotonicSeconds() -> Double { Double(RTPWatchdog.now()) / 1e9 }

    /// A `seconds` long 440 Hz sine at 0.5 peak, mono, written as a WAV at `sampleRate`.
    static func writeTone(_ path: String, seconds: Double, sampleRate: Int = 48000) throws {
        let frames = Int(seconds * Double(sampleRate))
        try FFmpegTestSupport.writeWAV(path, FFmpegTestSupport.sine(frames: frames, sampleRate: sampleRate, channels: 1),
                                       sampleRate: sampleRate, channels: 1)
    }

    /// The frequency of a mono signal from its zero crossings, over its middle half.
    static func frequency(_ samples: [Float], sampleRate: Int) -> Double {
        let middle = samples[(samples.count / 4)..<(samples.count * 3 / 4)]
        var crossings = 0
        var previous = middle.first ?? 0
        for sample in middle.dropFirst() {
            if (previous < 0) != (sample < 0) { crossings += 1 }
            previous = sample
        }
        return Double(crossings) / 2 / (Double(middle.count) / Double(sampleRate))
    }

    static func rms(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    /// `rtp-source` parameters.
    static func parameters(sdp: String, timeout: Double = 0.5, startTimeout: Double = 30, sampleRate: Int? = 16000,
                           channels: Int? = 1) -> JSONObject {
        var parameters = JSONObject()
        parameters["sdp"] = .string(sdp)
        parameters["timeout"] = .number(timeout)
        parameters["startTimeout"] = .number(startTimeout)
        if let sampleRate { parameters["sampleRate"] = .number(Double(sampleRate)) }
        if let channels { parameters["channels"] = .number(Double(channels)) }
        return parameters
    }
}
