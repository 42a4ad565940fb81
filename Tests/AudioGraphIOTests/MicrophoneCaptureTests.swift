import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphIO

// `mic-source` capturing for real from a PulseAudio null sink's monitor (scripts/start-pulseaudio.sh starts the
// server; CI runs it). Each test loads a null sink of its own so nothing else played on the server leaks in.
// Waits are for conditions, with generous timeouts; no assertion depends on timing.

@Suite(.serialized, .enabled(if: SoundServer.enabled, SoundServer.skipReason), .ownThreads)
struct MicrophoneCaptureTests {
    static let speech = testsDirectory.appendingPathComponent("AudioGraphSpeechTests/Fixtures/goforward.wav").path

    @Test func theNodeEmitsBlocksWithConsecutivePositions() throws {
        let sink = try PrivateSink()
        defer { sink.remove() }
        var parameters = JSONObject()
        parameters["device"] = .string(sink.monitor)
        parameters["sampleRate"] = 48000
        parameters["channels"] = 2
        parameters["blockMs"] = 10
        let mic = try NodeHarness(type: MicSourceNode.self, id: "mic", parameters: parameters, input: nil)
        for _ in 0..<10 { #expect(try mic.produce() == .more) }
        let buffers = mic.buffers()
        #expect(buffers.count == 10)
        #expect(buffers.allSatisfy { $0.format == AudioFormat(sampleRate: 48000, channels: 2) && $0.frameCount == 480 })
        #expect(buffers.map(\.position) == (0..<10).map { Int64($0 * 480) })
        // Nothing plays into the sink: its monitor hears digital silence.
        #expect(buffers.allSatisfy { $0.samples.allSatisfy { $0 == 0 } })
        // Once the graph is cancelled, `produce` finishes without reading.
        mic.cancel()
        #expect(try mic.produce() == .finished)
        #expect(mic.buffers().count == 10)
        mic.stop()
        mic.node.stop()   // idempotent
    }

    @Test func sevenChannelsOpen() throws {
        // The default channel map has no 7-channel layout; the capture extends it.
        let sink = try PrivateSink()
        defer { sink.remove() }
        let capture = try PulseAudioCapture(device: sink.monitor, sampleRate: 16000, channels: 7)
        var block = [Float](repeating: 1, count: 160 * 7)
        try block.withUnsafeMutableBufferPointer { buffer throws(MicrophoneError) in
            try capture.read(into: buffer, frames: 160)
        }
        #expect(block.allSatisfy { $0 == 0 })
        capture.close()
        capture.close()
    }

    /// Real speech played into the sink with paplay comes out of mic-source: same level envelope, same length,
    /// same waveform.
    @Test func capturesSpeechPlayedIntoTheSink() throws {
        let sink = try PrivateSink()
        defer { sink.remove() }
        let reference = try readMono(Self.speech)
        #expect(reference.sampleRate == 16000)
        let graph = try buildMicrophoneGraph(
            "\"mic\": {\"type\": \"mic-source\", \"device\": \"\(sink.monitor)\"}, \"rec\": {\"type\": \"test-recorder\"}",
            links: "\"mic -> rec\"")
        let recorder = graph.node("rec")!.instance as! RecordingSinkNode
        let run = BackgroundRun(graph)
        func capturedFrames() -> Int { recorder.buffers.reduce(0) { $0 + $1.frameCount } }

        // Capture is live before anything plays.
        #expect(blockingEventually(timeout: 20) { capturedFrames() >= 1600 || run.isFinished }, "no audio from the monitor")
        let player = ChildProcess()
        player.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        player.arguments = ["paplay", "--device=\(sink.name)", "--volume=65536", Self.speech]
        try player.run()
        player.waitUntilExit()
        #expect(player.terminationStatus == 0)
        // Half a second of tail after paplay has drained its stream into the sink.
        let atExit = capturedFrames()
        #expect(blockingEventually(timeout: 20) { capturedFrames() >= atExit + 8000 || run.isFinished })
        let outcome = try #require(run.cancelAndWait(), "the run did not end after cancel")
        let summary = try outcome.get()
        #expect(summary.interrupted)
        #expect(summary.droppedFrames.isEmpty)

        let buffers = recorder.buffers
        #expect(buffers.allSatisfy { $0.format == AudioFormat(sampleRate: 16000, channels: 1) && $0.frameCount == 320 })
        #expect(buffers.map(\.position) == buffers.indices.map { Int64($0 * 320) })
        #expect(recorder.finished && recorder.stopped)
        let captured = recorder.samples

        // The level envelope (RMS per 10 ms) of the capture matches the file's at one offset.
        let window = 160
        let referenceEnvelope = rmsEnvelope(reference.samples, window: window)
        let capturedEnvelope = rmsEnvelope(captured, window: window)
        try #require(capturedEnvelope.count > referenceEnvelope.count, "captured less audio than the file holds")
        let match = bestAlignment(of: referenceEnvelope, in: capturedEnvelope)
        // Measured here: 0.99. The bound leaves room for the server's resampling (16 kHz -> sink -> 16 kHz) and
        // for 10 ms windows that straddle the capture's blocks differently from the file's.
        #expect(match.correlation > 0.9, "envelope correlation \(match.correlation)")

        // The speech is all there, at its level, and the capture is silent outside it (nothing else plays).
        let start = match.offset * window
        let aligned = Array(captured[start..<(start + reference.samples.count)])
        let gain = Signals.rms(aligned) / Signals.rms(reference.samples)
        #expect(gain > 0.7 && gain < 1.4, "captured/file RMS \(gain)")   // measured 0.997
        let outside = Array(captured[..<start]) + Array(captured[(start + reference.samples.count)...])
        #expect(Signals.rms(outside) < 0.01 * Signals.rms(reference.samples), "noise outside the speech")

        // Speech is where the file has speech: the windows above -30 dB of the loudest agree.
        func active(_ envelope: ArraySlice<Double>) -> [Bool] {
            let peak = envelope.max() ?? 0
            return envelope.map { $0 > peak * 0.0316 }
        }
        let fileActive = active(referenceEnvelope[...])
        let captureActive = active(capturedEnvelope[match.offset..<(match.offset + referenceEnvelope.count)])
        let agreement = Double(zip(fileActive, captureActive).filter { $0 == $1 }.count) / Double(fileActive.count)
        #expect(agreement > 0.9, "speech/silence agreement \(agreement)")   // measured 0.97
        let speechSeconds = Double(fileActive.filter { $0 }.count) * 0.01
        let capturedSpeechSeconds = Double(captureActive.filter { $0 }.count) * 0.01
        #expect(abs(speechSeconds - capturedSpeechSeconds) < 0.1,   // measured: equal (1.81 s)
                "speech \(capturedSpeechSeconds) s vs \(speechSeconds) s")

        // The waveform itself: best sample offset near the envelope's, normalized cross-correlation.
        let file = reference.samples.map(Double.init)
        let heard = captured.map(Double.init)
        var bestSample = -2.0
        for shift in max(0, start - window)...min(captured.count - file.count, start + window) {
            bestSample = max(bestSample, normalizedDot(file, heard, at: shift))
        }
        // Measured here: 0.999 (the server's resampling both ways is all that differs).
        #expect(bestSample > 0.9, "waveform correlation \(bestSample)")
    }

    /// A queued consumer slower than real time behind mic-source: the queue drops and counts, the microphone
    /// keeps reading, and the run reports the drops.
    @Test func aSlowQueuedConsumerDropsAndCountsInsteadOfStallingCapture() throws {
        let sink = try PrivateSink()
        defer { sink.remove() }
        let graph = try buildMicrophoneGraph(
            "\"mic\": {\"type\": \"mic-source\", \"device\": \"\(sink.monitor)\", \"blockMs\": 10}, "
                + "\"slow\": {\"type\": \"test-slow\", \"delayMs\": 50}, \"rec\": {\"type\": \"test-recorder\"}",
            links: "\"mic -> slow -> rec\"")
        let recorder = graph.node("rec")!.instance as! RecordingSinkNode
        let run = BackgroundRun(graph)
        // 10 buffers through a 50 ms consumer take >= 0.5 s, in which the microphone made ~50.
        #expect(blockingEventually(timeout: 30) { recorder.buffers.count >= 10 || run.isFinished })
        let outcome = try #require(run.cancelAndWait(), "the run did not end after cancel")
        let summary = try outcome.get()

        let dropped = summary.droppedFrames["slow"] ?? 0
        #expect(dropped > 0)
        #expect(run.warnings.contains { $0.hasPrefix("slow: dropped \(dropped) frames") }, "\(run.warnings)")
        // The microphone read past what the consumer took: it never waited for it.
        let received = recorder.buffers
        let produced = try #require(summary.sources.first { $0.node == "mic" }).framesProduced
        #expect(Int(produced) == (received.count + dropped) * 160)
        // What got through is in order, with gaps on the stream clock where buffers were dropped.
        #expect(zip(received, received.dropFirst()).allSatisfy { $0.position < $1.position })
        #expect(zip(received, received.dropFirst()).contains { $0.endPosition != $1.position })
        // End of stream is never dropped: the consumer and the sink still finished.
        #expect(recorder.finished && recorder.stopped)
    }

    /// Cancelling a live graph ends it (the microphone stops within a block) and finalizes everything after it.
    @Test func cancellingEndsCaptureAndFinalizesDownstream() throws {
        let sink = try PrivateSink()
        defer { sink.remove() }
        let folder = try TemporaryFolder(prefix: "agmic")
        let wav = folder.path("capture.wav")
        let graph = try buildMicrophoneGraph(
            "\"mic\": {\"type\": \"mic-source\", \"device\": \"\(sink.monitor)\", \"blockMs\": 50}, "
                + "\"rec\": {\"type\": \"test-recorder\"}, \"wav\": {\"type\": \"wav-sink\", \"path\": \"\(wav)\"}",
            links: "\"mic -> rec\", \"mic -> wav\"")
        let recorder = graph.node("rec")!.instance as! RecordingSinkNode
        let run = BackgroundRun(graph)
        #expect(blockingEventually(timeout: 20) { recorder.buffers.count >= 4 || run.isFinished })
        let outcome = try #require(run.cancelAndWait(), "the run did not end after cancel")
        let summary = try outcome.get()
        #expect(summary.interrupted)
        #expect(recorder.finished && recorder.stopped)
        // The wav sink was finalized with every frame the microphone produced.
        let produced = try #require(summary.sources.first { $0.node == "mic" }).framesProduced
        #expect(produced == Int64(recorder.buffers.count * 800))
        let file = try SoundFileReader(path: wav)
        defer { file.close() }
        #expect(file.frameCount == produced)
        #expect(file.sampleRate == 16000)
    }

    /// An inline node slower than real time makes the stream's buffer fill; the source says so, once.
    @Test func fallingBehindBecauseOfAnInlineNodeIsReported() throws {
        let sink = try PrivateSink()
        defer { sink.remove() }
        // 20 ms of audio per block, 40 ms of work per block on the capture thread: the backlog grows 20 ms per
        // block and passes half the 2 s buffer after about 50 blocks.
        let graph = try buildMicrophoneGraph(
            "\"mic\": {\"type\": \"mic-source\", \"device\": \"\(sink.monitor)\"}, "
                + "\"slow\": {\"type\": \"test-slow-inline\", \"delayMs\": 40}, \"rec\": {\"type\": \"test-recorder\"}",
            links: "\"mic -> slow -> rec\"")
        let run = BackgroundRun(graph)
        #expect(blockingEventually(timeout: 60) { run.warnings.contains { $0.contains("behind") } || run.isFinished },
                "\(run.warnings)")
        let outcome = try #require(run.cancelAndWait(), "the run did not end after cancel")
        _ = try outcome.get()
        let lagWarnings = run.warnings.filter { $0.hasPrefix("mic: capture is ") && $0.contains("ms behind the microphone") }
        #expect(lagWarnings.count == 1, "\(run.warnings)")
    }
}
