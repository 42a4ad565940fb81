import AudioGraphTestKit
import Foundation
import Testing

/// `aac-sink` in real runs of the CLI: Ctrl-C, a failure of another node and a failure of the sink itself all
/// leave an M4A that ffprobe reads.
@Suite("audiograph: aac-sink finalizes its file")
struct AACInterruptTests {
    /// A real-time file source through a level meter (for the event that proves the run is under way) into an
    /// M4A.
    static func liveRecording(input: String, output: String) -> String {
        """
        {
          "version": 1,
          "nodes": {
            "src":   { "type": "file-source", "path": "\(input)", "realtime": true },
            "level": { "type": "level-meter", "intervalMs": 100 },
            "rec":   { "type": "aac-sink", "path": "\(output)", "bitrate": 64000 }
          },
          "links": ["src -> level -> rec"]
        }
        """
    }

    /// One source into a WAV and an M4A at once.
    static func wavAndM4A(input: String) -> String {
        """
        {
          "version": 1,
          "nodes": {
            "src": { "type": "file-source", "path": "\(input)" },
            "wav": { "type": "wav-sink", "path": "out/copy.wav" },
            "rec": { "type": "aac-sink", "path": "out/rec.m4a" }
          },
          "links": ["src -> wav", "src -> rec"]
        }
        """
    }

    /// `ffprobe` of a file in `dir`: the container's duration and the stream's sample rate, or nil if ffprobe
    /// cannot read it.
    static func probe(_ name: String, in dir: TemporaryFolder) async throws -> (duration: Double, sampleRate: Int, stderr: String)? {
        let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                           ["ffprobe", "-v", "error", "-select_streams", "a:0", "-show_entries",
                                            "stream=sample_rate:format=duration", "-of", "default=noprint_wrappers=1", name],
                                           in: dir)
        var fields: [String: String] = [:]
        for line in result.stdoutLines {
            let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard result.status == 0, let duration = fields["duration"].flatMap(Double.init),
              let rate = fields["sample_rate"].flatMap(Int.init) else { return nil }
        return (duration, rate, result.stderr)
    }

    @Test("SIGINT during a real-time recording leaves a playable M4A and exits 130")
    func sigintFinalizesTheM4A() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("long.wav", in: dir, sampleRate: 44100, channels: 2, seconds: 30)
        try dir.write("rec.json", Self.liveRecording(input: "long.wav", output: "out/rec.m4a"))

        // Ctrl-C once a level event shows 0.7 s of audio went through (read in real time, so the recorder had it).
        let run = try await Harness.interruptedRun("rec.json", in: dir, until: { lines in
            lines.contains { line in
                let event = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
                return (event?["time"] as? Double ?? 0) >= 0.7
            }
        })
        #expect(run.running, "the run printed no event before it ended")
        let (status, elapsed, output, errors, report) = (run.exit, run.elapsed, run.stdout, run.stderr, run.report)

        #expect(!status.timedOut, "\(report)")
        #expect(!status.signalled && status.status == 130, "\(report)")
        #expect(errors.contains("interrupted"), "\(report)")
        for line in output.split(separator: "\n") {
            let event = parseJSONObject(String(line))
            #expect(event?["type"] as? String == "level", "only level events, no error event: \(line)")
        }

        // The M4A was finalized (its index written): ffprobe reads it, and it holds about what was recorded
        // in real time before the interrupt — at least the 0.7 s seen, less than the whole run.
        #expect(dir.exists("out/rec.m4a"), "\(report)")
        let probe = try await Self.probe("out/rec.m4a", in: dir)
        let found = try #require(probe, "ffprobe cannot read the interrupted recording\n\(report)")
        #expect(found.sampleRate == 44100)
        #expect(found.duration >= 0.7 && found.duration <= elapsed + 0.1 && found.duration < 30,
                "duration \(found.duration) s after \(elapsed) s\n\(report)")
    }

    /// Another node fails part way (wav-sink hits a file size limit, far below the WAV's size but above the
    /// M4A's): the run exits 74 naming the WAV, and the M4A beside it is still finalized.
    @Test("a failure of another node leaves a playable M4A (74)")
    func otherNodeFailureFinalizesTheM4A() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, sampleRate: 44100, channels: 2, seconds: 4)
        try dir.write("both.json", Self.wavAndM4A(input: "in.wav"))
        // dash counts ulimit -f in 512-byte blocks, bash in 1024: 100-200 KB. The 4 s WAV needs 706 KB, the
        // M4A about 32 KB.
        let prelude = "trap '' XFSZ; ulimit -f 200"
        let result = try await Harness.audiograph(["run", "both.json", "--quiet"], in: dir, shellPrelude: prelude)
        #expect(result.status == 74, "\(result)")
        #expect(result.stderrLines.contains { $0.hasPrefix("audiograph: /") && $0.contains("/out/copy.wav: cannot write") },
                "\(result)")
        let probe = try await Self.probe("out/rec.m4a", in: dir)
        let found = try #require(probe, "ffprobe cannot read the M4A\n\(result)")
        #expect(found.duration > 0 && found.duration <= 4.01, "duration \(found.duration)")
    }

    /// The sink itself cannot write (a file size limit; EFBIG, as a full disk gives ENOSPC): exit 74 with
    /// `audiograph: <path>: cannot write <path>: File too large`, and no crash.
    @Test("aac-sink failing part way is an I/O error naming the file (74)")
    func sinkWriteFailure() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, sampleRate: 44100, channels: 2, seconds: 20)
        try dir.write("rec.json", """
            {
              "version": 1,
              "nodes": {
                "src": { "type": "file-source", "path": "in.wav" },
                "rec": { "type": "aac-sink", "path": "out/rec.m4a", "bitrate": 128000 }
              },
              "links": ["src -> rec"]
            }
            """)
        // 4-8 KB of M4A: the 20 s file needs about 320 KB. The input WAV is only read.
        let prelude = "trap '' XFSZ; ulimit -f 8"
        let result = try await Harness.audiograph(["run", "rec.json", "--quiet"], in: dir, shellPrelude: prelude)
        #expect(result.status == 74, "\(result)")
        #expect(result.stdout.isEmpty, "\(result)")
        #expect(result.stderrLines.contains {
            $0.hasPrefix("audiograph: /") && $0.contains("/out/rec.m4a: cannot write /") && $0.hasSuffix("File too large")
        }, "audiograph: <output path>: cannot write <path>: File too large\n\(result)")
        #expect(!result.signalled, "\(result)")
    }

    /// An output folder that is a regular file: exit 73 naming the M4A.
    @Test("an unwritable aac-sink path (73)")
    func unwritablePath() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir, seconds: 0.2)
        try dir.write("blocker", "not a folder\n")
        try dir.write("rec.json", Self.liveRecording(input: "in.wav", output: "blocker/rec.m4a")
            .replacingOccurrences(of: "\"realtime\": true", with: "\"realtime\": false"))
        let result = try await Harness.audiograph(["run", "rec.json"], in: dir)
        #expect(result.status == 73, "\(result)")
        #expect(result.stderrLines.contains { $0.hasPrefix("audiograph: /") && $0.contains("blocker/rec.m4a: ") }, "\(result)")
        #expect(try dir.read("blocker") == "not a folder\n")
    }

    /// A rate AAC cannot code (20 kHz) and 10 channels: the builder inserts a resampler to 22.05 kHz 8 ch.
    @Test("the builder converts what AAC cannot code")
    func formatNegotiation() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("odd.wav", in: dir, sampleRate: 20000, channels: 10, seconds: 0.5)
        try dir.write("rec.json", """
            {
              "version": 1,
              "nodes": {
                "src": { "type": "file-source", "path": "odd.wav" },
                "rec": { "type": "aac-sink", "path": "rec.m4a" }
              },
              "links": ["src -> rec"]
            }
            """)
        let validate = try await Harness.audiograph(["validate", "rec.json"], in: dir)
        #expect(validate.status == 0, "\(validate)")
        #expect(validate.stdout.contains("auto-inserted"), "\(validate)")
        #expect(validate.stdout.contains("22050 Hz 8 ch"), "\(validate)")
        let run = try await Harness.audiograph(["run", "rec.json", "--quiet"], in: dir)
        #expect(run.status == 0, "\(run)")
        let probe = try #require(try await Self.probe("rec.m4a", in: dir))
        #expect(probe.sampleRate == 22050)
        #expect(abs(probe.duration - 0.5) < 0.01, "duration \(probe.duration)")
    }
}
