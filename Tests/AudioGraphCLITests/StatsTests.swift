import AudioGraphTestKit
import Foundation
import Testing

/// `run --stats`, `--stats json`, `--no-metrics` and the `latency` events of `--events jsonl`, on real speech
/// through the real VAD and pocketsphinx.
@Suite("audiograph run: --stats and latency events")
struct StatsTests {
    static func speechDirectory() throws -> TemporaryFolder {
        let dir = try TemporaryFolder()
        let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("AudioGraphSpeechTests/Fixtures")
        let clip = try Data(contentsOf: fixtures.appendingPathComponent("goforward.wav"))
        try clip.write(to: URL(fileURLWithPath: dir.path("speech.wav")))
        try dir.write("speech.json", """
            {"version": 1, "session": {"autoStartTranscription": true},
             "nodes": {"src": {"type": "file-source", "path": "speech.wav"}, "vad": {"type": "vad"},
                       "asr": {"type": "recognizer", "engine": "pocketsphinx"}, "cc": {"type": "caption-sink", "format": "srt", "path": "out/cc.srt"}},
             "links": ["src -> vad -> asr -> cc"]}
            """)
        return dir
    }

    @Test("--events jsonl: a latency event after each final, same segment; --stats json: one last stdout line")
    func latencyEventsAndStatsJSON() async throws {
        let dir = try Self.speechDirectory()
        let result = try await Harness.audiograph(["run", "speech.json", "--events", "jsonl", "--stats", "json", "--quiet"],
                                                  in: dir)
        #expect(result.status == 0, "\(result)")
        let objects = result.stdoutLines.compactMap { parseJSONObject($0) }
        let finals = objects.filter { $0["type"] as? String == "transcript" && $0["final"] as? Bool == true }
        let latencies = objects.filter { $0["type"] as? String == "latency" }
        #expect(!finals.isEmpty, "\(result)")
        #expect(latencies.count == finals.count, "\(result)")
        for (index, object) in objects.enumerated() where object["type"] as? String == "transcript" && object["final"] as? Bool == true {
            // The recognizer's next line is its latency event (the VAD's events, from another thread, may come
            // between).
            let next = try #require(objects[(index + 1)...].first { $0["node"] as? String == "asr" },
                                    "no line from asr after its final\n\(result)")
            #expect(next["type"] as? String == "latency")
            #expect(next["segment"] as? Double == object["segment"] as? Double)
            let toFinal = try #require(next["speechEndToFinal"] as? Double)
            #expect(toFinal >= 0, "\(next)")
            #expect(next["firstPartial"] == nil, "a batch run makes no partials")
        }
        let stats = try #require(objects.last)
        #expect(stats["type"] as? String == "stats", "the stats line comes last\n\(result)")
        let nodes = try #require(stats["nodes"] as? [String: Any])
        #expect(Set(nodes.keys) == ["src", "vad", "asr", "cc"])
        let asr = try #require(nodes["asr"] as? [String: Any])
        #expect(asr["type"] as? String == "recognizer")
        let speech = try #require(asr["speechEndToFinal"] as? [String: Any])
        #expect(speech["count"] as? Double == Double(finals.count))
        #expect((asr["processingSeconds"] as? Double ?? 0) > 0)
        #expect(asr["framesIn"] as? Double == (nodes["vad"] as? [String: Any])?["framesOut"] as? Double)
        #expect(((asr["queue"] as? [String: Any])?["capacity"] as? Double) == 256)
        let src = try #require(nodes["src"] as? [String: Any])
        #expect((src["audioSeconds"] as? Double).map { abs($0 - 2.786) < 0.01 } == true, "\(src)")
        #expect(result.stderr.isEmpty, "--stats json prints nothing on stderr\n\(result.stderr)")
    }

    @Test("--stats: a table on stderr with a row per node and the recognizer's speech latency")
    func statsTable() async throws {
        let dir = try Self.speechDirectory()
        let result = try await Harness.audiograph(["run", "--stats", "speech.json"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        let header = try #require(lines.firstIndex { $0.hasPrefix("node ") }, "\(result.stderr)")
        #expect(lines[header].contains("share") && lines[header].contains("p95"))
        for (offset, id) in ["src", "vad", "asr", "cc"].enumerated() {
            #expect(lines[header + 1 + offset].hasPrefix(id + " "), "\(lines)")
        }
        #expect(lines.contains { $0.hasPrefix("asr: speech end → final p50 ") }, "\(result.stderr)")
    }

    @Test("--no-metrics: no latency events; --stats with it, or with an unknown format, is a usage error (64)")
    func noMetricsAndUsageErrors() async throws {
        let dir = try Self.speechDirectory()
        let both = try await Harness.audiograph(["run", "speech.json", "--stats", "--no-metrics"], in: dir)
        #expect(both.status == 64 && both.stderr.contains("--stats"), "\(both)")
        let xml = try await Harness.audiograph(["run", "speech.json", "--stats=xml"], in: dir)
        #expect(xml.status == 64 && xml.stderr.contains("--stats") && xml.stderr.contains("json"), "\(xml)")
        #expect(!dir.exists("out/cc.srt"), "usage errors run nothing")

        let plain = try await Harness.audiograph(["run", "speech.json", "--events", "jsonl", "--no-metrics", "--quiet"], in: dir)
        #expect(plain.status == 0, "\(plain)")
        #expect(plain.stdout.contains(#""type":"transcript""#))
        #expect(!plain.stdout.contains(#""type":"latency""#))
    }
}
