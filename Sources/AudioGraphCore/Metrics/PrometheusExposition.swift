/// Prometheus's text exposition format (version 0.0.4): what `GET /metrics` answers in `audiograph serve` and in
/// batch workers started with `--metrics-port`.
///
/// Add one or more labelled `GraphStatistics` (every series of a run gets the caller's labels, such as
/// `session="standup"`, plus `node` and `type`), and any simple families of the caller's own, then read `text`:
///
/// ```swift
/// var exposition = PrometheusExposition()
/// exposition.add(session.statistics(), labels: [("session", "standup")])
/// exposition.add(gauge: "audiograph_live_sessions", help: "Live sessions in this process.", value: 1)
/// let body = exposition.text  // served as `PrometheusExposition.contentType`
/// ```
///
/// Families come out in the order they were first added, each with one `# HELP` and one `# TYPE` line and all
/// its samples together (as the format requires), however many statistics were added. Label values are escaped
/// (backslash, double quote, newline); metric and label names that are not valid Prometheus names have their
/// other characters replaced with `_`. The per-node families:
///
/// | family | type | what |
/// |---|---|---|
/// | `audiograph_node_processing_seconds_total` | counter | time inside the node's calls |
/// | `audiograph_node_calls_total` | counter | calls into the node |
/// | `audiograph_node_buffers_in_total`, `…_frames_in_total`, `…_events_in_total` | counter | received |
/// | `audiograph_node_buffers_out_total`, `…_frames_out_total`, `…_events_out_total` | counter | sent |
/// | `audiograph_node_dropped_frames_total` | counter | audio frames (samples per channel) its queue threw away (0 without a queue) |
/// | `audiograph_node_queue_full_waits_total` | counter | producers that waited for its full queue (queued nodes) |
/// | `audiograph_node_queue_depth`, `…_queue_capacity`, `…_queue_max_depth` | gauge | its queue, in frames (queued nodes) |
/// | `audiograph_node_latency_seconds` | histogram | per frame: queue wait plus processing |
/// | `audiograph_speech_end_to_final_seconds` | histogram | a recognizer's speech end → final |
/// | `audiograph_first_partial_seconds` | histogram | a recognizer's speech start → first partial |
public struct PrometheusExposition: Sendable {
    /// The `Content-Type` of the text.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// Label names and values, in the order they are written.
    public typealias Labels = [(name: String, value: String)]

    /// A family's type (`# TYPE`).
    public enum MetricType: String, Sendable {
        case counter, gauge, histogram, untyped
    }

    /// Upper bounds (seconds) of `audiograph_node_latency_seconds`'s buckets: 2^13 … 2^33 ns, every other power
    /// of two (8.2 µs … 8.6 s), each a boundary of `LatencyHistogram`'s buckets so the counts are exact.
    public static let nodeLatencyBounds: [Double] = stride(from: 13, through: 33, by: 2).map {
        Double(UInt64(1) << UInt64($0)) / 1e9
    }

    private struct Sample: Sendable {
        var suffix: String
        var labels: Labels
        var value: String
    }

    private struct Family: Sendable {
        var name: String
        var help: String
        var type: MetricType
        var samples: [Sample] = []
    }

    private var families: [Family] = []
    private var index: [String: Int] = [:]

    public init() {}

    // MARK: Graph statistics

    /// Adds every node of `statistics`, each series labelled with `labels`, then `node` (its id) and `type` (its
    /// node type).
    public mutating func add(_ statistics: GraphStatistics, labels: Labels = []) {
        for node in statistics.nodes {
            let labels = labels + [("node", node.id), ("type", node.type)]
            let c = node.counters
            add(counter: "audiograph_node_processing_seconds_total",
                help: "Seconds spent inside the node's calls (not waiting for a full queue downstream or a paced clock).",
                labels: labels, value: c.processingSeconds)
            add(counter: "audiograph_node_calls_total", help: "Calls into the node (process, handle, finish; a source: produce).",
                labels: labels, value: c.calls)
            add(counter: "audiograph_node_buffers_in_total", help: "Audio buffers the node received.",
                labels: labels, value: c.buffersIn)
            add(counter: "audiograph_node_frames_in_total", help: "Audio frames (samples per channel) the node received.",
                labels: labels, value: c.framesIn)
            add(counter: "audiograph_node_events_in_total", help: "Events the node received.", labels: labels, value: c.eventsIn)
            add(counter: "audiograph_node_buffers_out_total", help: "Audio buffers the node sent downstream.",
                labels: labels, value: c.buffersOut)
            add(counter: "audiograph_node_frames_out_total", help: "Audio frames the node sent downstream.",
                labels: labels, value: c.framesOut)
            add(counter: "audiograph_node_events_out_total", help: "Events the node sent downstream, including ones passed on.",
                labels: labels, value: c.eventsOut)
            add(counter: "audiograph_node_dropped_frames_total",
                help: "Frames thrown away because the node's queue was full (live capture only).",
                labels: labels, value: Int64(node.queue?.droppedFrames ?? 0))
            if let queue = node.queue {
                add(counter: "audiograph_node_queue_full_waits_total",
                    help: "Times a producer found the node's queue full and waited.", labels: labels,
                    value: Int64(queue.fullWaits))
                add(gauge: "audiograph_node_queue_depth", help: "Frames in the node's input queue now.", labels: labels,
                    value: Double(queue.depth))
                add(gauge: "audiograph_node_queue_capacity", help: "Frames the node's input queue holds at most.",
                    labels: labels, value: Double(queue.capacity))
                add(gauge: "audiograph_node_queue_max_depth", help: "The most frames the node's input queue ever held.",
                    labels: labels, value: Double(queue.maxDepth))
            }
            add(histogram: "audiograph_node_latency_seconds",
                help: "Per frame: seconds waiting in the node's queue plus the node's own time on it.", labels: labels,
                bounds: Self.nodeLatencyBounds, cumulativeCounts: c.latency.cumulativeCounts(atOrBelow: Self.nodeLatencyBounds),
                count: c.latency.count, sum: Double(c.latency.sumNanoseconds) / 1e9)
            if let speech = node.speech {
                add(histogram: "audiograph_speech_end_to_final_seconds",
                    help: "Seconds from the end of speech to the final transcript, per final.", labels: labels,
                    samples: speech.speechEndToFinal)
                add(histogram: "audiograph_first_partial_seconds",
                    help: "Seconds from the start of speech to the segment's first partial transcript.", labels: labels,
                    samples: speech.firstPartial)
            }
        }
    }

    private mutating func add(histogram name: String, help: String, labels: Labels, samples: LatencySamples) {
        add(histogram: name, help: help, labels: labels, bounds: LatencySamples.bucketBounds,
            cumulativeCounts: samples.cumulativeCounts, count: samples.count, sum: samples.sum)
    }

    // MARK: Families of the caller's own

    /// Adds a counter sample (`name` should end in `_total`).
    public mutating func add(counter name: String, help: String, labels: Labels = [], value: Double) {
        append(name, help: help, type: .counter, Sample(suffix: "", labels: labels, value: Self.format(value)))
    }

    /// Adds a counter sample with a whole-number value.
    public mutating func add(counter name: String, help: String, labels: Labels = [], value: Int64) {
        append(name, help: help, type: .counter, Sample(suffix: "", labels: labels, value: String(value)))
    }

    /// Adds a gauge sample.
    public mutating func add(gauge name: String, help: String, labels: Labels = [], value: Double) {
        append(name, help: help, type: .gauge, Sample(suffix: "", labels: labels, value: Self.format(value)))
    }

    /// Adds a histogram's series: `name_bucket{le="…"}` for each of `bounds` (ascending, seconds) with its
    /// cumulative count, `le="+Inf"` with `count`, then `name_sum` and `name_count`.
    public mutating func add(histogram name: String, help: String, labels: Labels = [], bounds: [Double],
                             cumulativeCounts: [Int64], count: Int64, sum: Double) {
        precondition(bounds.count == cumulativeCounts.count, "a cumulative count per bound")
        var samples: [Sample] = []
        for (bound, cumulative) in zip(bounds, cumulativeCounts) {
            samples.append(Sample(suffix: "_bucket", labels: labels + [("le", Self.format(bound))],
                                  value: String(min(cumulative, count))))
        }
        samples.append(Sample(suffix: "_bucket", labels: labels + [("le", "+Inf")], value: String(count)))
        samples.append(Sample(suffix: "_sum", labels: labels, value: Self.format(sum)))
        samples.append(Sample(suffix: "_count", labels: labels, value: String(count)))
        for sample in samples { append(name, help: help, type: .histogram, sample) }
    }

    /// Adds `sample` to family `name`, declaring the family when it is new.
    private mutating func append(_ name: String, help: String, type: MetricType, _ sample: Sample) {
        let name = Self.metricName(name)
        if let position = index[name] {
            families[position].samples.append(sample)
        } else {
            index[name] = families.count
            families.append(Family(name: name, help: help, type: type, samples: [sample]))
        }
    }

    // MARK: The text

    /// The exposition: every family with samples, `# HELP` and `# TYPE` first, ending in a newline.
    public var text: String {
        var text = ""
        for family in families where !family.samples.isEmpty {
            text += "# HELP \(family.name) \(Self.escapeHelp(family.help))\n"
            text += "# TYPE \(family.name) \(family.type.rawValue)\n"
            for sample in family.samples {
                text += family.name + sample.suffix
                if !sample.labels.isEmpty {
                    text += "{" + sample.labels.map { "\(Self.labelName($0.name))=\"\(Self.escapeLabelValue($0.value))\"" }
                        .joined(separator: ",") + "}"
                }
                text += " \(sample.value)\n"
            }
        }
        return text
    }

    /// A label value as written between double quotes: `\` → `\\`, `"` → `\"`, newline → `\n`.
    public static func escapeLabelValue(_ value: String) -> String {
        var escaped = ""
        for character in value.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// HELP text: `\` → `\\`, newline → `\n`.
    static func escapeHelp(_ help: String) -> String {
        var escaped = ""
        for character in help.unicodeScalars {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// A number as Prometheus reads it: whole numbers without a fraction, `+Inf`, `-Inf`, `NaN`.
    public static func format(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return "\(value)"
    }

    /// `[a-zA-Z_:][a-zA-Z0-9_:]*`, other characters replaced with `_`.
    static func metricName(_ name: String) -> String { sanitize(name, allowColon: true) }

    /// `[a-zA-Z_][a-zA-Z0-9_]*`, other characters replaced with `_`.
    static func labelName(_ name: String) -> String { sanitize(name, allowColon: false) }

    private static func sanitize(_ name: String, allowColon: Bool) -> String {
        var result = ""
        for (offset, scalar) in name.unicodeScalars.enumerated() {
            let letter = (scalar >= "a" && scalar <= "z") || (scalar >= "A" && scalar <= "Z") || scalar == "_"
                || (allowColon && scalar == ":")
            let digit = scalar >= "0" && scalar <= "9"
            result.unicodeScalars.append(letter || (digit && offset > 0) ? scalar : "_")
        }
        return result.isEmpty ? "_" : result
    }
}
