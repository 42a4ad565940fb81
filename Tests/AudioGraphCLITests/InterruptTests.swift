import Foundation
import Testing

/// Exit 130: SIGINT stops the sources, finalizes every output and exits 130.
@Suite("audiograph: interrupted (exit 130)")
struct InterruptTests {
    @Test("SIGINT during a real-time run finalizes the WAV and exits 130")
    func sigintFinalizesOutputs() async throws {
        let dir = try TempDirectory()
        try await Harness.makeWAV("long.wav", in: dir, sampleRate: 16000, channels: 1, seconds: 30)
        try dir.write("live.json", Configs.live(input: "long.wav", output: "out/live.wav"))

        let process = Process()
        process.executableURL = try Harness.binary()
        process.arguments = ["run", "live.json", "--events", "jsonl"]
        process.currentDirectoryURL = dir.url
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe()
        process.standardOutput = stdout
        let errURL = dir.url.appendingPathComponent("stderr.txt")
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let stderr = try FileHandle(forWritingTo: errURL)
        process.standardError = stderr

        let reader = PipeReader(stdout)
        let box = ProcessBox(process)
        let exit = Task { try await Harness.runToExit(box.process, onStart: { reader.start() }) }

        // The condition: the first event line proves the graph runs. Then Ctrl-C.
        let running = await reader.firstLine()
        #expect(running, "the run printed no event before it ended")
        if running { box.process.interrupt() }

        let status = try await exit.value
        let output = String(decoding: await reader.all(), as: UTF8.self)
        try stderr.close()
        let errors = try String(contentsOf: errURL, encoding: .utf8)
        let report = "exit \(status.status) signalled \(status.signalled)\nstdout:\n\(output)\nstderr:\n\(errors)"

        #expect(!status.timedOut, "\(report)")
        #expect(!status.signalled && status.status == 130, "\(report)")
        #expect(errors.contains("stopping"), "\(report)")
        #expect(errors.contains("interrupted"), "\(report)")
        for line in output.split(separator: "\n") {
            let event = parseJSONObject(String(line))
            #expect(event?["type"] as? String == "level", "only level events, no error event: \(line)")
        }

        // The WAV was finalized: its header is valid and covers what was written, less than the file.
        #expect(dir.exists("out/live.wav"), "\(report)")
        let duration = try await Harness.soxi("-D", "out/live.wav", in: dir)
        #expect(duration > 0 && duration < 30, "duration \(duration)\n\(report)")
        #expect(try await Harness.soxi("-r", "out/live.wav", in: dir) == 16000)
        let size = try FileManager.default.attributesOfItem(atPath: dir.path("out/live.wav"))[.size] as? Int ?? 0
        #expect(size == 44 + Int((duration * 16000).rounded()) * 2, "the header's length matches the data")
    }
}
