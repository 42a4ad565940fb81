import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// The voice-capture session on a real sound server: speech played into a null sink is recorded from its
/// monitor (the "microphone") and transcribed. CI starts the server (scripts/start-pulseaudio.sh).
@Suite(.serialized) struct VoiceCaptureMicrophoneTests {
    static func run(_ program: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [program] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static let serverUp = (try? run("pactl", ["info"]).status) == 0
    static let required = ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_SOUND_SERVER"] == "1"

    @Test(.enabled(if: serverUp || required, "no PulseAudio/PipeWire server: run scripts/start-pulseaudio.sh"))
    func transcribesSpeechPlayedIntoTheMicrophone() async throws {
        // A null sink of our own, so nothing else played on the server leaks in.
        let sink = "agcapture_" + UUID().uuidString.prefix(8).lowercased()
        let loaded = try Self.run("pactl", ["load-module", "module-null-sink", "sink_name=\(sink)"])
        try #require(loaded.status == 0, "pactl load-module")
        defer { _ = try? Self.run("pactl", ["unload-module", loaded.output.trimmingCharacters(in: .whitespacesAndNewlines)]) }

        let folder = try TemporaryFolder(prefix: "mic-capture")
        let capture = VoiceCaptureSession(configuration: VoiceCaptureSession.Configuration(
            source: NodeSpec(id: "mic", type: "mic-source", parameters: JSONObject([("device", .string(sink + ".monitor"))])),
            temporaryDirectory: folder.url))
        try await capture.startRecording()
        #expect(await capture.state == .recording)
        let levels = capture.levels()
        let meter = Task {
            var loudest = 0.0
            for await level in levels { loudest = max(loudest, level.audioLevel) }
            return loudest
        }

        // Play real speech into the sink and wait for it to end (paplay returns when it has played).
        let clip = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AudioGraphSpeechTests/Fixtures/goforward.wav").path
        let played = try Self.run("paplay", ["--device=\(sink)", clip])
        #expect(played.status == 0)
        // A little trailing silence, measured on the recording's own clock.
        let end = capture.level.recordingDuration + 0.7
        for await level in capture.levels() where level.recordingDuration >= end { break }
        let result = try await capture.stopAndTranscribe()
        meter.cancel()
        let loudest = await meter.value
        // Either engine (whisper writes "Go forward 10 meters.").
        #expect(WordErrorRate.normalize(result.transcript).joined(separator: " ").contains("forward ten meters"),
                "\(result.transcript)")
        #expect(result.duration >= 2.79, "the whole clip was recorded: \(result.duration)")
        #expect(loudest > 0.5, "the meter moved while speech played: \(loudest)")
        #expect(((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).isEmpty,
                "the recording was deleted")
    }
}
