import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// `audiograph run` with an `rtp-source`, end to end: speech sent by `ffmpeg -re … -f rtp` as Opus (what Janus
/// and mediasoup forward) is resampled, split by the VAD, recognized by pocketsphinx and stored under the
/// source's speaker; the sender stops mid-silence-less clip, and the run ends cleanly `timeout` seconds later with
/// that last sentence finalized and stored.
@Suite("audiograph run: rtp-source")
struct RTPSourceRunTests {
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
        let run = Task { try await Harness.audiograph(["run", "rtp.json", "--events", "jsonl", "--quiet"], in: dir) }
        // The run listens before the sender starts: no packet is lost to a socket not yet bound.
        try await eventually("rtp-source to bind UDP port \(port)") { UDPPorts.isInUse(port) }

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
}
