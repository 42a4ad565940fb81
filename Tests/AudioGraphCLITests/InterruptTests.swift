import AudioGraphTestKit
import Foundation
import Testing

/// Exit 130: SIGINT stops the sources, finalizes every output and exits 130.
@Suite("audiograph: interrupted (exit 130)")
struct InterruptTests {
    @Test("SIGINT during a real-time run finalizes the WAV and exits 130")
    func sigintFinalizesOutputs() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("long.wav", in: dir, sampleRate: 16000, channels: 1, seconds: 30)
        try dir.write("live.json", Configs.live(input: "long.wav", output: "out/live.wav"))

        // The condition: the first event line proves the graph runs. Then Ctrl-C.
        let run = try await Harness.interruptedRun("live.json", in: dir)
        #expect(run.running, "the run printed no event before it ended")
        let (status, output, errors, report) = (run.exit, run.stdout, run.stderr, run.report)

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
