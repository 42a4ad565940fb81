@testable import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing

/// `PrometheusExposition`'s text read back by a real parser (prometheus_client): families once each, label
/// values with backslashes, quotes and newlines intact, counters as `_total`, histograms with cumulative
/// buckets ending in `+Inf` equal to their count.
@Suite("Prometheus exposition (PrometheusExposition)")
struct PrometheusExpositionTests {
    /// Label values that need escaping.
    static let trickySession = "call \"7\"\nsecond line \\ end"

    /// Two nodes: a source with no queue, and a recognizer with a queue, per-frame latencies and speech
    /// latencies; `scale` multiplies the counts.
    static func statistics(scale: Int64 = 1) -> GraphStatistics {
        var source = NodeCounters()
        source.calls = 10 * scale
        source.processingNanoseconds = 2_500_000 * UInt64(scale)
        source.buffersOut = 10 * scale
        source.framesOut = 16_000 * scale
        var asr = NodeCounters()
        asr.calls = 12 * scale
        asr.processingNanoseconds = 1_250_000_000 * UInt64(scale)
        asr.buffersIn = 10 * scale
        asr.framesIn = 16_000 * scale
        asr.eventsIn = 2 * scale
        asr.eventsOut = 3 * scale
        for _ in 0..<scale {
            asr.latency.record(nanoseconds: 5_000)          // ≤ 8.192 µs
            asr.latency.record(nanoseconds: 100_000)        // ≤ 131.072 µs
            asr.latency.record(nanoseconds: 100_000)
            asr.latency.record(nanoseconds: 3_000_000_000)  // ≤ 8.59 s
        }
        var speech = SpeechLatencyStatistics()
        for _ in 0..<scale {
            speech.record(SpeechLatency(segment: 1, speechEnd: 1, speechEndToFinal: 0.35, firstPartial: 0.15))
            speech.record(SpeechLatency(segment: 2, speechEnd: 4, speechEndToFinal: 2.5, firstPartial: nil))
        }
        return GraphStatistics(wallSeconds: 3, nodes: [
            NodeStatistics(id: "src", type: "file-source", isSource: true, sampleRate: 16000, counters: source, queue: nil,
                           speech: nil),
            NodeStatistics(id: "asr", type: "recognizer", isSource: false, sampleRate: 16000, counters: asr,
                           queue: QueueStatistics(capacity: 64, depth: 3, maxDepth: 17, dropped: 5, droppedFrames: 5120,
                                                  fullWaits: 2),
                           speech: speech),
        ])
    }

    static func exposition() -> PrometheusExposition {
        var exposition = PrometheusExposition()
        exposition.add(gauge: "audiograph_live_sessions", help: "Sessions running now.", value: 2)
        exposition.add(statistics(), labels: [("session", trickySession)])
        exposition.add(statistics(scale: 2), labels: [("session", "plain")])
        exposition.add(counter: "audiograph_worker_files_total", help: "Files by outcome.\nSecond \\ line.",
                       labels: [("outcome", "done")], value: Int64(4))
        exposition.add(counter: "audiograph_worker_files_total", help: "Files by outcome.", labels: [("outcome", "failed")],
                       value: Int64(1))
        return exposition
    }

    @Test("the text parses: every family once, typed, with help; histograms cumulative with +Inf == count",
          .enabled(if: PrometheusParser.enabled, PrometheusParser.skipNote))
    func parses() async throws {
        let dir = try TemporaryFolder()
        let text = Self.exposition().text
        let families = try await PrometheusParser.parse(text, in: dir)
        PrometheusParser.checkStructure(families, text: text)
        let expected: [String: String] = [
            "audiograph_live_sessions": "gauge",
            "audiograph_node_processing_seconds": "counter", "audiograph_node_calls": "counter",
            "audiograph_node_buffers_in": "counter", "audiograph_node_frames_in": "counter",
            "audiograph_node_events_in": "counter", "audiograph_node_buffers_out": "counter",
            "audiograph_node_frames_out": "counter", "audiograph_node_events_out": "counter",
            "audiograph_node_dropped_frames": "counter", "audiograph_node_queue_full_waits": "counter",
            "audiograph_node_queue_depth": "gauge", "audiograph_node_queue_capacity": "gauge",
            "audiograph_node_queue_max_depth": "gauge", "audiograph_node_latency_seconds": "histogram",
            "audiograph_speech_end_to_final_seconds": "histogram", "audiograph_first_partial_seconds": "histogram",
            "audiograph_worker_files": "counter",
        ]
        #expect(Dictionary(uniqueKeysWithValues: families.map { ($0.name, $0.type) }) == expected, "\(families.map(\.name))")
        // The first help of a family is the one written, escaped and read back.
        #expect(families[family: "audiograph_worker_files"]?.help == "Files by outcome.\nSecond \\ line.")

        // Label values with a quote, a newline and a backslash come back as they were.
        let tricky = ["session": Self.trickySession, "node": "asr", "type": "recognizer"]
        #expect(families.value("audiograph_node_calls", tricky) == 12)
        #expect(families.value("audiograph_node_calls", ["session": "plain", "node": "asr"]) == 24)
        #expect(families.value("audiograph_node_frames_out", ["session": Self.trickySession, "node": "src",
                                                               "type": "file-source"]) == 16000)
        #expect(families.value("audiograph_node_processing_seconds", tricky) == 1.25)
        #expect(families.value("audiograph_node_dropped_frames", tricky) == 5120)
        #expect(families.value("audiograph_node_dropped_frames", ["session": "plain", "node": "src"]) == 0)
        #expect(families.value("audiograph_node_queue_max_depth", tricky) == 17)
        #expect(families.value("audiograph_node_queue_capacity", tricky) == 64)
        #expect(families.value("audiograph_node_queue_full_waits", tricky) == 2)
        // Queue families only for nodes with a queue; speech families only for recognizers.
        #expect(families[family: "audiograph_node_queue_depth"]?.samples.allSatisfy { $0.labels["node"] == "asr" } == true)
        #expect(families[family: "audiograph_speech_end_to_final_seconds"]?.samples.allSatisfy { $0.labels["node"] == "asr" } == true)
        #expect(families.value("audiograph_worker_files", ["outcome": "done"]) == 4)
        #expect(families.value("audiograph_live_sessions") == 2)

        // Node latency: 4 frames per scale, in the right buckets, sum in seconds.
        let latency = "audiograph_node_latency_seconds"
        #expect(families.value(latency, sample: latency + "_bucket", ["session": "plain", "node": "asr", "le": "8.192e-06"]) == 2)
        #expect(families.value(latency, sample: latency + "_bucket", ["session": "plain", "node": "asr", "le": "0.000131072"]) == 6)
        #expect(families.value(latency, sample: latency + "_bucket", ["session": "plain", "node": "asr", "le": "2.147483648"]) == 6)
        #expect(families.value(latency, sample: latency + "_bucket", ["session": "plain", "node": "asr", "le": "+Inf"]) == 8)
        #expect(families.value(latency, sample: latency + "_count", ["session": "plain", "node": "asr"]) == 8)
        let sum = try #require(families.value(latency, sample: latency + "_sum", tricky))
        #expect(abs(sum - 3.000205) < 1e-9)
        #expect(families[family: latency]?.samples.filter { $0.name == latency + "_bucket" && $0.labels["session"] == "plain"
            && $0.labels["node"] == "src" }.count == PrometheusExposition.nodeLatencyBounds.count + 1)

        // Speech latency: the fixed buckets of LatencySamples.
        let final = "audiograph_speech_end_to_final_seconds"
        #expect(families.value(final, sample: final + "_bucket", ["session": "plain", "le": "0.4"]) == 2)
        #expect(families.value(final, sample: final + "_bucket", ["session": "plain", "le": "2"]) == 2)
        #expect(families.value(final, sample: final + "_bucket", ["session": "plain", "le": "3"]) == 4)
        #expect(families.value(final, sample: final + "_count", ["session": "plain"]) == 4)
        #expect(abs((families.value(final, sample: final + "_sum", ["session": "plain"]) ?? 0) - 5.7) < 1e-9)
        let partial = "audiograph_first_partial_seconds"
        #expect(families.value(partial, sample: partial + "_count", tricky) == 1)
        #expect(families.value(partial, sample: partial + "_bucket", ["session": Self.trickySession, "le": "0.1"]) == 0)
        #expect(families.value(partial, sample: partial + "_bucket", ["session": Self.trickySession, "le": "0.2"]) == 1)
    }

    @Test("escaping, numbers, names, and the layout of the text")
    func text() {
        #expect(PrometheusExposition.escapeLabelValue("a\\b\"c\nd") == #"a\\b\"c\nd"#)
        #expect(PrometheusExposition.format(3) == "3")
        #expect(PrometheusExposition.format(0.25) == "0.25")
        #expect(PrometheusExposition.format(.infinity) == "+Inf")
        #expect(PrometheusExposition.format(.nan) == "NaN")
        #expect(PrometheusExposition.metricName("my-metric.total") == "my_metric_total")
        #expect(PrometheusExposition.labelName("9lives:x") == "_lives_x")
        #expect(PrometheusExposition.contentType == "text/plain; version=0.0.4; charset=utf-8")
        #expect(PrometheusExposition().text.isEmpty)

        let text = Self.exposition().text
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "# HELP audiograph_live_sessions Sessions running now.")
        #expect(lines.contains(#"audiograph_node_calls_total{session="call \"7\"\nsecond line \\ end",node="asr",type="recognizer"} 12"#),
                "\(text)")
        #expect(lines.contains(#"audiograph_node_latency_seconds_bucket{session="plain",node="asr",type="recognizer",le="+Inf"} 8"#))
        #expect(lines.filter { $0 == "# TYPE audiograph_node_calls_total counter" }.count == 1)
        #expect(lines.filter { $0.hasPrefix("# HELP audiograph_worker_files_total ") } == [
            #"# HELP audiograph_worker_files_total Files by outcome.\nSecond \\ line."#,
        ])
        // Every sample line belongs to the family declared last.
        var current = ""
        for line in lines {
            if line.hasPrefix("# TYPE ") {
                current = String(line.split(separator: " ")[2])
            } else if !line.hasPrefix("#") {
                #expect(line.hasPrefix(current), "\(line) outside \(current)")
            }
        }
    }
}
