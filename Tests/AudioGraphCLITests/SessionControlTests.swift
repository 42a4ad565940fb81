import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// `audiograph run --control FIFO`: session commands as JSON lines, each answered with an ack or an error.
@Suite("audiograph: session control")
struct SessionControlTests {
    /// Collects a child's stdout line by line.
    final class LineCollector: Sendable {
        private let lines = Mutex<[String]>([])
        private let partial = Mutex(Data())
        private let ended = Mutex(false)

        init(_ pipe: Pipe) {
            pipe.fileHandleForReading.readabilityHandler = { [self] handle in
                let data = handle.availableData
                if data.isEmpty {
                    handle.readabilityHandler = nil
                    ended.withLock { $0 = true }
                    return
                }
                let complete = partial.withLock { buffer -> [String] in
                    buffer.append(data)
                    var found: [String] = []
                    while let newline = buffer.firstIndex(of: 0x0A) {
                        found.append(String(decoding: buffer[buffer.startIndex..<newline], as: UTF8.self))
                        buffer.removeSubrange(buffer.startIndex...newline)
                    }
                    return found
                }
                lines.withLock { $0.append(contentsOf: complete) }
            }
        }

        var all: [String] { lines.withLock { $0 } }
        var objects: [[String: Any]] { all.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] } }

        /// Waits for the end of the child's stdout: its exit and the delivery of its last bytes come apart.
        func waitForEnd() async -> Bool {
            await poll("the end of stdout") { ended.withLock { $0 } }
        }

        /// Waits until a line satisfies `condition` (generous timeout; polls, no fixed sleeps).
        func waitFor(_ what: String, _ condition: ([String: Any]) -> Bool) async -> Bool {
            await poll(what) { objects.contains(where: condition) }
        }

        private func poll(_ what: String, timeout: Double = 120, _ condition: () -> Bool) async -> Bool {
            guard await eventually(timeout: timeout, condition) else {
                Issue.record("timed out waiting for \(what); stdout so far:\n\(all.joined(separator: "\n"))")
                return false
            }
            return true
        }
    }

    @Test("commands through a FIFO are acknowledged, bad ones answered with errors, and stop ends the run")
    func controlThroughAFIFO() async throws {
        let dir = try TemporaryFolder()
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AudioGraphSpeechTests/Fixtures")
        // A long real-speech file: goforward ten times over.
        let clip = fixtures.appendingPathComponent("goforward.wav").path
        let sox = ChildProcess()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/sox")
        sox.arguments = Array(repeating: clip, count: 10) + [dir.path("speech.wav")]
        try sox.run()
        sox.waitUntilExit()
        _ = try dir.write("control.json", """
            {"version": 1, "session": {"id": "ctl"},
             "nodes": {"src": {"type": "file-source", "path": "speech.wav", "realtime": true},
                       "vad": {"type": "vad"}, "asr": {"type": "recognizer", "engine": "pocketsphinx"},
                       "cc": {"type": "caption-sink", "format": "srt", "path": "out/cc.srt"}},
             "links": ["src -> vad -> asr -> cc"]}
            """)
        let fifo = dir.path("control.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)

        let process = ChildProcess()
        process.executableURL = try Harness.binary()
        process.arguments = ["run", "control.json", "--events", "jsonl", "--control", "control.fifo"]
        process.currentDirectoryURL = dir.url
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let collector = LineCollector(stdout)
        let exit = Task { try await Harness.runToExit(process) }
        // Opening a FIFO for writing waits for the reader: the run has started once this returns.
        let writer = try #require(FileHandle(forWritingAtPath: fifo))
        func send(_ line: String) { writer.write(Data((line + "\n").utf8)) }

        // Transcription starts off (the session block leaves autoStartTranscription false).
        send(#"{"command":"startTranscription"}"#)
        #expect(await collector.waitFor("the start ack") { $0["type"] as? String == "ack" && $0["command"] as? String == "startTranscription" })
        #expect(await collector.waitFor("a final transcript") { $0["type"] as? String == "transcript" && $0["final"] as? Bool == true })
        send(#"{"command":"startTranscriptoin"}"#)
        send(#"{"command":"setCaptionLanguage","language":"de-DE"}"#)
        send("not json")
        send(#"{"command":"hideCaptions"}"#)
        send(#"{"command":"stop"}"#)
        try writer.close()
        let status = try await exit.value
        #expect(status.status == 0, "stop is a normal end")
        #expect(await collector.waitForEnd())

        let answers = collector.objects.filter { ["ack", "error"].contains($0["type"] as? String) }
        let summary = answers.map { "\($0["type"]!) \($0["command"] ?? "-")" }
        #expect(summary == ["ack startTranscription", "error startTranscriptoin", "error setCaptionLanguage",
                            "error -", "ack hideCaptions", "ack stop"], "\(answers)")
        try #require(answers.count == 6)
        #expect((answers[1]["message"] as? String)?.contains("did you mean \"startTranscription\"") == true)
        #expect(answers[2]["code"] as? String == "unsupported_language")
        #expect((answers[2]["message"] as? String)?.contains("it has en-US") == true)
        #expect(answers[4]["captions"] as? Bool == false)
        // No transcript before transcription was started.
        let firstTranscript = collector.all.firstIndex { $0.contains("\"type\":\"transcript\"") }
        let firstAck = collector.all.firstIndex { $0.contains("\"type\":\"ack\"") }
        #expect(firstAck != nil && firstTranscript != nil && firstAck! < firstTranscript!)
        #expect(dir.exists("out/cc.srt"))
    }
}
