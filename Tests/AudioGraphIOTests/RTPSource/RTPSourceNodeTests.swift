import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphIO

// `rtp-source` against a real sender: `ffmpeg -re -i tone.wav … -f rtp rtp://127.0.0.1:PORT`, received through
// an SDP file written before the node starts (so it listens before the first packet).

@Suite(.ownThreads) struct RTPSourceNodeTests {
    typealias Codec = RTPTestSupport.Codec

    struct Received {
        var format: AudioFormat
        var buffers: [AudioBuffer]
        var samples: [Float]
        /// Seconds from the sender's exit to the stream's end.
        var endAfterSender: Double
        var warnings: [String]
        var dropped: Int

        var seconds: Double { Double(samples.count / format.channels) / Double(format.sampleRate) }
    }

    /// Sends a `seconds` long 440 Hz tone as `codec` and receives it with `rtp-source` until it times out; with
    /// `dropEvery`, through a relay that loses every so many packets.
    func receive(_ codec: Codec, seconds: Double = 1.5, timeout: Double = 0.5, sampleRate: Int? = 16000,
                 dropEvery: Int? = nil) throws -> Received {
        try withTemporaryFolder(prefix: "RTPSourceNodeTests") { dir in
            let port = UDPPorts.freePair()
            let sdp = dir + "/in.sdp"
            try codec.sdp(port: port).write(toFile: sdp, atomically: true, encoding: .utf8)
            let tone = dir + "/tone.wav"
            try RTPTestSupport.writeTone(tone, seconds: seconds)
            let source = try NodeHarness(type: RTPSourceNode.self, id: "rtp",
                                         parameters: RTPTestSupport.parameters(sdp: sdp, timeout: timeout,
                                                                               sampleRate: sampleRate),
                                         input: nil)
            defer { source.stop() }
            let relay = try dropEvery.map { try RTPTestSupport.LossyRelay(to: port, dropEvery: $0) }
            defer { relay?.stop() }
            let sender = try RTPTestSupport.Sender(tone, codec: codec, port: relay?.inputPort ?? port)
            defer { sender.stop() }
            try source.runToEnd()
            let ended = RTPTestSupport.monotonicSeconds()
            let exited = try #require(sender.exitedAt, "the stream ended before the sender did")
            return Received(format: try #require(source.outputFormat), buffers: source.buffers(),
                            samples: source.samples(), endAfterSender: ended - exited, warnings: source.warnings,
                            dropped: relay?.droppedPackets ?? 0)
        }
    }

    /// The tone arrived whole: its length, pitch and level, in buffers that follow each other.
    func expectTone(_ received: Received, seconds: Double, tolerance: Double,
                    sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(abs(received.seconds - seconds) <= tolerance,
                "received \(received.seconds) s of \(seconds) s", sourceLocation: sourceLocation)
        let mono = stride(from: 0, to: received.samples.count, by: received.format.channels).map { received.samples[$0] }
        let frequency = RTPTestSupport.frequency(mono, sampleRate: received.format.sampleRate)
        #expect(abs(frequency - 440) < 5, "\(frequency) Hz", sourceLocation: sourceLocation)
        let level = RTPTestSupport.rms(mono[(mono.count / 4)..<(mono.count * 3 / 4)])
        #expect(abs(level - 0.5 / 2.0.squareRoot()) < 0.05, "RMS \(level)", sourceLocation: sourceLocation)
        var position: Int64 = 0
        for buffer in received.buffers {
            #expect(buffer.position == position, sourceLocation: sourceLocation)
            position += Int64(buffer.frameCount)
        }
    }

    @Test("Opus (48 kHz stereo, as Janus and mediasoup send) arrives whole, at the rate asked for")
    func opus() throws {
        let received = try receive(.opus)
        #expect(received.format == AudioFormat(sampleRate: 16000, channels: 1))
        // Opus adds its 6.5 ms of priming (no OpusHead in RTP says to drop it) and pads the last 20 ms frame.
        expectTone(received, seconds: 1.5, tolerance: 0.03)
        #expect(received.warnings.isEmpty, "\(received.warnings)")
    }

    @Test("PCMU (8 kHz, as Asterisk sends) in the SDP's own format when none is asked for")
    func pcmu() throws {
        let received = try receive(.pcmu, sampleRate: nil)
        #expect(received.format == AudioFormat(sampleRate: 8000, channels: 1))
        expectTone(received, seconds: 1.5, tolerance: 0.01)
    }

    @Test("PCMA arrives whole")
    func pcma() throws {
        expectTone(try receive(.pcma), seconds: 1.5, tolerance: 0.01)
    }

    @Test("L16 (16-bit linear PCM) arrives whole")
    func l16() throws {
        let received = try receive(.l16(sampleRate: 16000), sampleRate: nil)
        #expect(received.format == AudioFormat(sampleRate: 16000, channels: 1))
        expectTone(received, seconds: 1.5, tolerance: 0.01)
    }

    @Test("a sender that stops ends the stream cleanly `timeout` seconds after its last packet")
    func endsAfterTimeout() throws {
        let received = try receive(.opus, seconds: 1, timeout: 1)
        // FFmpeg polls its socket every 100 ms; the sender's exit follows its last packet. Measured: 1.00 s. The
        // upper bound only catches a stream that does not end (a loaded machine may be late).
        #expect(received.endAfterSender >= 0.8 && received.endAfterSender <= 3, "\(received.endAfterSender) s")
        expectTone(received, seconds: 1, tolerance: 0.03)
    }

    @Test("lost packets become silence of their length: the stream keeps its length and its times")
    func lostPacketsConcealed() throws {
        let received = try receive(.opus, seconds: 2, dropEvery: 10)
        // 2 s of 20 ms packets: about 10 lost, the last one perhaps after the last packet (then no gap).
        #expect(received.dropped >= 9, "\(received.dropped) dropped")
        #expect(abs(received.seconds - 2) <= 0.03, "received \(received.seconds) s of 2 s with \(received.dropped) packets lost")
        let warning = try #require(received.warnings.first, "no concealment reported")
        let gaps = Int(try #require(warning.firstMatch(of: /filled (\d+) gap/)).1) ?? 0
        #expect(gaps >= received.dropped - 1 && gaps <= received.dropped, "\(warning)")
        #expect(warning.hasSuffix("ms of silence"), "no timestamp jump: \(warning)")
        // Each hole is 20 ms of exact zeros where the tone was.
        let silentRuns = zeroRuns(received.samples, atLeast: 300)
        #expect(silentRuns == gaps, "\(silentRuns) runs of silence for \(gaps) gaps")
    }

    /// With FFmpeg's reorder queue (the default), a restarted sender whose new random sequence numbers are below
    /// the last one's is dropped as "too late" (half the time): without the queue its packets are taken at once.
    @Test("without a reorder queue, a sender that restarts (new random sequence and timestamp) continues the stream")
    func restartedSender() throws {
        try withTemporaryFolder(prefix: "RTPSourceNodeTests") { dir in
            let port = UDPPorts.freePair()
            let sdp = dir + "/in.sdp"
            try Codec.pcmu.sdp(port: port).write(toFile: sdp, atomically: true, encoding: .utf8)
            let tone = dir + "/tone.wav"
            try RTPTestSupport.writeTone(tone, seconds: 1)
            var parameters = RTPTestSupport.parameters(sdp: sdp, timeout: 2, sampleRate: nil)
            parameters["reorderQueueSize"] = .number(0)
            let source = try NodeHarness(type: RTPSourceNode.self, id: "rtp", parameters: parameters, input: nil)
            defer { source.stop() }
            // The second sender starts when the first has ended, well within the timeout.
            let first = try RTPTestSupport.Sender(tone, codec: .pcmu, port: port)
            defer { first.stop() }
            first.process.waitUntilExit()
            let second = try RTPTestSupport.Sender(tone, codec: .pcmu, port: port)
            defer { second.stop() }
            try source.runToEnd()
            let seconds = Double(source.samples().count) / 8000
            // FFmpeg's RTP demuxer drops the new sender's first packet while it checks the new sequence.
            #expect(seconds > 1.7 && seconds <= 2.0, "received \(seconds) s of 2 s")
            #expect(source.warnings.count == 1
                        && source.warnings[0].hasSuffix(": 1 RTP timestamp jump(s) taken as a restarted sender (nothing inserted)"),
                    "\(source.warnings)")
        }
    }

    /// Runs of at least `length` exact zeros.
    func zeroRuns(_ samples: [Float], atLeast length: Int) -> Int {
        var runs = 0
        var current = 0
        for sample in samples + [1] {
            if sample == 0 { current += 1 } else {
                if current >= length { runs += 1 }
                current = 0
            }
        }
        return runs
    }

    @Test("no sender at all: the stream ends empty after `startTimeout`")
    func startTimeout() throws {
        try withTemporaryFolder(prefix: "RTPSourceNodeTests") { dir in
            let sdp = dir + "/in.sdp"
            try Codec.opus.sdp(port: UDPPorts.freePair()).write(toFile: sdp, atomically: true, encoding: .utf8)
            let started = RTPTestSupport.monotonicSeconds()
            let source = try NodeHarness(type: RTPSourceNode.self, id: "rtp",
                                         parameters: RTPTestSupport.parameters(sdp: sdp, timeout: 5, startTimeout: 0.5),
                                         input: nil)
            try source.runToEnd()
            let waited = RTPTestSupport.monotonicSeconds() - started
            #expect(source.samples().isEmpty)
            #expect(waited >= 0.5 && waited < 3, "\(waited) s")
        }
    }

    @Test("cancellation interrupts a receiver waiting for packets")
    func cancellation() throws {
        try withTemporaryFolder(prefix: "RTPSourceNodeTests") { dir in
            let port = UDPPorts.freePair()
            let sdp = dir + "/in.sdp"
            let text = Codec.pcmu.sdp(port: port)
            try text.write(toFile: sdp, atomically: true, encoding: .utf8)
            let flag = CancellationFlag()
            let receiver = try RTPReceiver(path: sdp, session: try RTPSessionDescription(parsing: text),
                                           sampleRate: 8000, channels: 1, timeout: 3600, startTimeout: nil,
                                           reorderQueueSize: nil, cancellation: flag,
                                           configuration: NodeConfiguration(id: "rtp", type: "rtp-source", values: JSONObject()))
            defer { receiver.close() }
            flag.cancel()
            #expect(try receiver.next(node: "rtp") == .cancelled)
        }
    }

    @Test("formats: the SDP's own by default, the parameters' when given; the node is live")
    func formats() throws {
        try withTemporaryFolder(prefix: "RTPSourceNodeTests") { dir in
            func node(_ codec: Codec, _ parameters: JSONObject = JSONObject()) throws -> RTPSourceNode {
                let sdp = dir + "/in.sdp"
                try codec.sdp(port: 5004).write(toFile: sdp, atomically: true, encoding: .utf8)
                var parameters = parameters
                parameters["sdp"] = .string(sdp)
                let values = try ParameterValidation.validate(parameters, against: RTPSourceNode.descriptor,
                                                              at: .root / "nodes" / "rtp")
                return try RTPSourceNode(configuration: NodeConfiguration(id: "rtp", type: "rtp-source", values: values))
            }
            #expect(try node(.opus).format == AudioFormat(sampleRate: 48000, channels: 2))
            #expect(try node(.pcmu).format == AudioFormat(sampleRate: 8000, channels: 1))
            #expect(try node(.l16(sampleRate: 44100)).format == AudioFormat(sampleRate: 44100, channels: 1))
            let asked = try node(.opus, ["sampleRate": .number(16000), "channels": .number(1)])
            #expect(asked.format == AudioFormat(sampleRate: 16000, channels: 1))
            #expect(asked.isLive && asked.isRealtime && asked.totalFrames == nil)
            #expect(asked.formatName == "Opus 48000 Hz 2 ch, payload 97, UDP port 5004")
        }
    }
}
