import AudioGraphTestKit
import Foundation
import Testing

/// Issue 17, item 1: on a terminal, the keys t and c follow `session.hideTranscriptionButton` and
/// `session.hideClosedCaptionButton`, and the line at the start says which keys are live. The run gets a real
/// terminal from `script(1)` (a pseudo-terminal), and the test types into it.
@Suite("audiograph run: terminal keys follow the hide settings")
struct TerminalKeyGatingTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AudioGraphSpeechTests/Fixtures")

    /// Runs `audiograph run keys.json` on a pseudo-terminal, waits for `ready`, types each key after the text
    /// before it appeared, and returns everything the terminal showed.
    func typing(_ session: String, steps: [(key: String, thenWaitFor: String)], ready: String) async throws -> String {
        let dir = try TemporaryFolder()
        let clip = Self.fixtures.appendingPathComponent("goforward.wav").path
        let sox = try await Harness.run(URL(fileURLWithPath: "/usr/bin/sox"), Array(repeating: clip, count: 20) + ["speech.wav"], in: dir)
        try #require(sox.status == 0, "\(sox)")
        _ = try dir.write("keys.json", """
            {"version": 1, "session": \(session),
             "nodes": {"src": {"type": "file-source", "path": "speech.wav", "realtime": true},
                       "vad": {"type": "vad"}, "asr": {"type": "recognizer", "engine": "pocketsphinx"},
                       "cc": {"type": "caption-sink", "format": "srt", "path": "out/cc.srt"}},
             "links": ["src -> vad -> asr -> cc"]}
            """)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qfec", "exec '\(try Harness.binary().path)' run keys.json", "/dev/null"]
        process.currentDirectoryURL = dir.url
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let reader = PipeReader(output)
        let exit = Task { try await Harness.runToExit(process, onStart: { reader.start() }) }
        func shown(_ text: String) async -> Bool {
            await reader.waitFor(data: { String(decoding: $0, as: UTF8.self).contains(text) })
        }
        let started = await shown(ready)
        #expect(started, "never showed \(ready)")
        for step in steps where started {
            try? input.fileHandleForWriting.write(contentsOf: Data(step.key.utf8))
            let answered = await shown(step.thenWaitFor)
            #expect(answered, "after \(step.key): never showed \(step.thenWaitFor)")
            if !answered { break }
        }
        try? input.fileHandleForWriting.write(contentsOf: Data("q".utf8))
        let status = try await exit.value
        try? input.fileHandleForWriting.close()
        let text = String(decoding: await reader.all(), as: UTF8.self)
        #expect(status.status == 0 && !status.timedOut, "\(status)\n\(text)")
        return text
    }

    @Test func byDefaultOnlyQuitIsLive() async throws {
        let text = try await typing(#"{"id": "keys"}"#, steps: [
            ("t", "the transcription control is hidden"),
            ("c", "the captions control is hidden"),
        ], ready: "keys: q stop")
        #expect(text.contains("keys: q stop (t off: session.hideTranscriptionButton is true; c off: session.hideClosedCaptionButton is true)"), "\(text)")
        #expect(text.contains("the transcription control is hidden for this session (session.hideTranscriptionButton is true)"), "\(text)")
        #expect(text.contains("the captions control is hidden for this session"), "\(text)")
        #expect(text.contains("set session.hideTranscriptionButton to false to start it with t"), "\(text)")
        #expect(!text.contains("transcription on"), "a hidden key must not steer: \(text)")
    }

    @Test func shownControlsAnswerTheirKeys() async throws {
        let text = try await typing(#"{"id": "keys", "hideTranscriptionButton": false, "hideClosedCaptionButton": false}"#, steps: [
            ("t", "toggleTranscription: transcription on, captions off"),
            ("c", "toggleCaptions: transcription on, captions on"),
        ], ready: "keys: t transcription, c captions, q stop")
        #expect(text.contains("press t to start it"), "\(text)")
        #expect(!text.contains("control_hidden") && !text.contains("is hidden"), "\(text)")
    }
}
