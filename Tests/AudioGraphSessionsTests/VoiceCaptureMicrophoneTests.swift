import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// The voice-capture session on a real sound server: speech played into a null sink is recorded from its
/// monitor (the "microphone") and transcribed. CI starts the server (scripts/start-pulseaudio.sh).
@Suite(.serialized, .ownThreads) struct VoiceCaptureMicrophoneTests {
    /// `program` with `arguments` through /usr/bin/env, stderr discarded.
    private static func command(_ program: String, _ arguments: [String]) -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        process.standardError = FileHandle.nullDevice
        return process
    }

    /// Runs a command to its end: blocking, for the suite's `serverUp` check only.
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = command(program, arguments)
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs a command to its end without blocking a thread (paplay takes as long as the clip): stdout goes
    /// to a file in `folder`, read once the command has exited.
    static func run(_ program: String, _ arguments: [String], in folder: TemporaryFolder) async throws
        -> (status: Int32, output: String) {
        let output = folder.url.appendingPathComponent("\(program)-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: output) }
        let process = command(program, arguments)
        process.standardOutput = try FileHandle(forWritingTo: output)
        try process.run()
        let status = await process.exited().status
        return (status, (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    /// Starts a command and leaves it to end on its own (a `defer` cannot wait for it).
    static func start(_ program: String, _ arguments: [String]) {
        let process = command(program, arguments)
        process.standardOutput = FileHandle.nullDevice
        try? process.run()
    }

    static let serverUp = (try? run("pactl", ["info"]).status) == 0
    static let required = ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_SOUND_SERVER"] == "1"

    @Test(.enabled(if: serverUp || required, "no PulseAudio/PipeWire server: run scripts/start-pulseaudio.sh"))
    func transcribesSpeechPlayedIntoTheMicrophone() async throws {
        // A null sink of our own, so nothing else played on the server leaks in.
        let commands = try TemporaryFolder(prefix: "mic-capture-commands")
        let sink = "agcapture_" + UUID().uuidString.prefix(8).lowercased()
        let loaded = try await Self.run("pactl", ["load-module", "module-null-sink", "sink_name=\(sink)"], in: commands)
        try #require(loaded.status == 0, "pactl load-module")
        let module = loaded.output.trimmingCharacters(in: .whitespacesAndNewlines)
        defer { Self.start("pactl", ["unload-module", module]) }

        let folder = try TemporaryFolder(prefix: "mic-capture")
        // Levels every 200 ms: the whole recording's levels (about 20) fit in a subscription's buffer of 64, so
        // the test reads them all after the stop, however late it gets to run on a loaded machine.
        let capture = VoiceCaptureSession(configuration: VoiceCaptureSession.Configuration(
            source: NodeSpec(id: "mic", type: "mic-source", parameters: JSONObject([("device", .string(sink + ".monitor"))])),
            temporaryDirectory: folder.url, levelIntervalMs: 200))
        let levels = capture.levels()
        try await capture.startRecording()
        #expect(await capture.state == .recording)

        // Play real speech into the sink and wait for it to end (paplay returns when it has played).
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AudioGraphSpeechTests/Fixtures/goforward.wav").path
        let played = try await Self.run("paplay", ["--device=\(sink)", clip], in: commands)
        #expect(played.status == 0)
        // A little trailing silence, measured on the recording's own clock.
        let end = capture.level.recordingDuration + 0.7
        for await level in capture.levels() where level.recordingDuration >= end { break }
        let result = try await capture.stopAndTranscribe()
        // Every level was sent before the stop returned, the last one the stop's own (level 0, the duration).
        var loudest = 0.0
        for await level in levels {
            loudest = max(loudest, level.audioLevel)
            if level.audioLevel == 0, level.recordingDuration == result.duration { break }
        }
        // Either engine (whisper writes "Go forward 10 meters.").
        #expect(WordErrorRate.normalize(result.transcript).joined(separator: " ").contains("forward ten meters"),
                "\(result.transcript)")
        #expect(result.duration >= 2.79, "the whole clip was recorded: \(result.duration)")
        #expect(loudest > 0.5, "the meter moved while speech played: \(loudest)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).isEmpty,
                "the recording was deleted")
    }
}
