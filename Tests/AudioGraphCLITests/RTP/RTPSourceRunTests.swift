import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// `audiograph run` with an `rtp-source`, end to end: speech sent by `ffmpeg -re … -f rtp` as Opus (what Janus
/// and mediasoup forward) is resampled, split by the VAD, recognized by pocketsphinx and stored under the
/// source's speaker; the sender stops mid-silence-less clip, and the run ends cleanly `timeout` seconds later with
/// that last sentence finalized and stored.
@Suite("audiograph run: rtp-source")
struct RTPSourceRunTests {
    /// Set when a run in the background has exited.
    final class RunEnded: Sendable {
        let flag = Atomic<Bool>(false)
    }

    @Test("speech over RTP: the final carries the speaker, is stored, and the run ends after the timeout")
    func speechOverRTP() async throws {
        let dir = try TemporaryFolder()
        let port = UDPPorts.freePair()
        try dir.write("phone.sdp", """
            v=0
            o=- 0 0 IN IP4 127.0.0.1
            s=phone
            c=IN IP4 127.0.0.1
            t=0 0
            m=audio \(port) RTP/AVP 97
            a=rtpmap:97 opus/48000/2

            """)
        try dir.write("rtp.json", """
            {
              "version": 1,
              "session": { "id": "rtp-call", "autoStartTranscription": true },
              "nodes": {
                "phone": { "type": "rtp-source", "sdp": "phone.sdp", "speaker": "Alice", "timeout": 1.5 },
                "rs":    { "type": "resampler", "sampleRate": 16000, "channels": 1 },
                "vad":   { "type": "vad" },
                "asr":   { "type": "recognizer", "engine": "pocketsphinx" },
                "store": { "type": "transcript-store", "path": "out/store.sqlite" }
              },
              "links": ["phone -> rs -> vad -> asr -> store"]
            }
            """)
        let ended = RunEnded()
        let run = Task {
            defer { ended.flag.store(true, ordering: .releasing) }
            return try await Harness.audiograph(["run", "rtp.json", "--events", "jsonl", "--quiet"], in: dir)
        }
        // The run listens before the sender starts: no packet is lost to a socket not yet bound. (A run that
        // ended instead, failing, is reported with its output.)
        try await eventually("rtp-source to bind UDP port \(port)", timeout: Harness.timeout) {
            UDPPorts.isInUse(port) || ended.flag.load(ordering: .acquiring)
        }
        if ended.flag.load(ordering: .acquiring) {
            Issue.record("the run ended before a packet was sent: \(try await run.value)")
            return
        }

        let speech = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("AudioGraphSpeechTests/Fixtures/goforward.wav")
        let sender = ChildProcess()
        sender.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sender.arguments = ["ffmpeg", "-nostdin", "-v", "error", "-re", "-i", speech.path, "-c:a", "libopus",
                            "-ar", "48000", "-ac", "2", "-payload_type", "97", "-f", "rtp", "rtp://127.0.0.1:\(port)"]
        sender.standardInput = FileHandle.nullDevice
        sender.standardOutput = nil
        sender.standardError = nil
        try sender.run()
        defer { sender.terminate() }
        let sent = await sender.exited()
        #expect(sent.status == 0 && sent.reason == .exit)

        let result = try await run.value
        #expect(result.status == 0, "\(result)")
        let finals = result.stdoutLines.compactMap { line -> [String: Any]? in
            guard let event = parseJSONObject(line), event["type"] as? String == "transcript",
                  event["final"] as? Bool == true else { return nil }
            return event
        }
        let final = try #require(finals.last, "no final transcript\n\(result)")
        #expect(final["speaker"] as? String == "Alice", "\(final)")
        let text = try #require(final["text"] as? String)
        #expect(text.contains("go forward"), "\(text)")
        // The clip is 2.8 s: its times are on the sender's clock.
        #expect((final["end"] as? Double ?? 0) <= 2.9, "\(final)")

        let store = try SQLiteTranscriptStore(path: dir.path("out/store.sqlite"), create: false)
        defer { store.close() }
        let records = try await TranscriptsRequest.Builder().sessionId("rtp-call").limit(10).store(store).build().fetchNext()
        let stored = try records.flatMap { try #require(try store.detail(tid: $0.tid)).utterances }
        #expect(stored.map(\.text) == finals.compactMap { $0["text"] as? String })
        #expect(stored.last?.speaker == "Alice")
    }

    /// Without FFmpeg's libraries (a broken libavutil first in `LD_LIBRARY_PATH`), `validate` still reads the SDP
    /// (it needs no FFmpeg) and `run` fails before any audio with exit 69 at the node's `sdp`, saying what to install.
    @Test("without FFmpeg: validate passes, run fails with exit 69 saying what to install")
    func withoutFFmpeg() async throws {
        let dir = try TemporaryFolder()
        try dir.write("phone.sdp", "v=0\nc=IN IP4 127.0.0.1\nm=audio \(UDPPorts.freePair()) RTP/AVP 0\n")
        try dir.write("rtp.json", """
            {
              "version": 1,
              "nodes": {
                "phone": { "type": "rtp-source", "sdp": "phone.sdp" },
                "out":   { "type": "wav-sink", "path": "out.wav" }
              },
              "links": ["phone -> out"]
            }
            """)
        try FileManager.default.createDirectory(at: dir.url.appendingPathComponent("lib"), withIntermediateDirectories: false)
        let avutil = try FFmpegLoadingTests.systemLibrary("libavutil")
        try dir.write("lib/\(avutil)", "")
        let environment = ProcessInfo.processInfo.environment.merging(
            ["LD_LIBRARY_PATH": dir.url.appendingPathComponent("lib").path]) { $1 }

        let validate = try await Harness.run(Harness.binary(), ["validate", "rtp.json"], in: dir, environment: environment)
        #expect(validate.status == 0, "\(validate)")
        let run = try await Harness.run(Harness.binary(), ["run", "rtp.json", "--quiet"], in: dir, environment: environment)
        expectError(run, exit: 69, at: "nodes.phone.sdp")
        #expect(run.stderr.contains("cannot receive RTP: cannot load FFmpeg's \(avutil)"), "\(run)")
        #expect(run.stderr.contains("install FFmpeg's libraries (Debian: libavutil"), "\(run)")
        #expect(!FileManager.default.fileExists(atPath: dir.path("out.wav")))
    }
}
