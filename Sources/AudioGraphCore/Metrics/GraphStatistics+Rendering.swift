import Foundation

extension GraphStatistics {
    /// The `--stats json` line: `{"type":"stats","wallSeconds":…,"nodes":{"<node id>":{…}}}`.
    public var json: JSONObject {
        var nodesObject = JSONObject()
        for node in nodes { nodesObject[node.id] = .object(nodeJSON(node)) }
        var object = JSONObject()
        object["type"] = .string("stats")
        object["wallSeconds"] = .number(Self.round(wallSeconds, 3))
        object["nodes"] = .object(nodesObject)
        return object
    }

    private func nodeJSON(_ node: NodeStatistics) -> JSONObject {
        let counters = node.counters
        var object = JSONObject()
        object["type"] = .string(node.type)
        object["processingSeconds"] = .number(Self.round(counters.processingSeconds, 6))
        object["timeShare"] = .number(Self.round(timeShare(of: node), 4))
        object["audioSeconds"] = .number(Self.round(node.audioSeconds, 3))
        object["realTimeFactor"] = node.realTimeFactor.map { .number(Self.round($0, 6)) } ?? .null
        object["calls"] = .number(Double(counters.calls))
        object["buffersIn"] = .number(Double(counters.buffersIn))
        object["framesIn"] = .number(Double(counters.framesIn))
        object["eventsIn"] = .number(Double(counters.eventsIn))
        object["buffersOut"] = .number(Double(counters.buffersOut))
        object["framesOut"] = .number(Double(counters.framesOut))
        object["eventsOut"] = .number(Double(counters.eventsOut))
        var latency = JSONObject()
        latency["p50"] = counters.latency.quantile(0.5).map { .number(Self.round($0, 6)) } ?? .null
        latency["p95"] = counters.latency.quantile(0.95).map { .number(Self.round($0, 6)) } ?? .null
        object["latency"] = .object(latency)
        object["dropped"] = .number(Double(node.queue?.droppedFrames ?? 0))
        if let queue = node.queue {
            object["queue"] = .object(JSONObject([
                ("capacity", .number(Double(queue.capacity))), ("depth", .number(Double(queue.depth))),
                ("maxDepth", .number(Double(queue.maxDepth))), ("fullWaits", .number(Double(queue.fullWaits))),
                ("droppedBuffers", .number(Double(queue.dropped))),
            ]))
        }
        if let speech = node.speech {
            object["speechEndToFinal"] = .object(Self.samplesJSON(speech.speechEndToFinal))
            object["firstPartial"] = .object(Self.samplesJSON(speech.firstPartial))
        }
        return object
    }

    private static func samplesJSON(_ samples: LatencySamples) -> JSONObject {
        JSONObject([
            ("count", .number(Double(samples.count))),
            ("p50", samples.quantile(0.5).map { .number(round($0, 3)) } ?? .null),
            ("p95", samples.quantile(0.95).map { .number(round($0, 3)) } ?? .null),
            ("mean", samples.count > 0 ? .number(round(samples.sum / Double(samples.count), 3)) : .null),
        ])
    }

    static func round(_ value: Double, _ digits: Int) -> Double {
        let scale = pow(10, Double(digits))
        return (value * scale).rounded() / scale
    }

    /// The `--stats` table: a row per node (time, share, real-time factor, frames in/out, queue, drops, p50/p95
    /// per-frame latency), then each recognizer's speech latencies.
    public var table: String {
        let header = ["node", "type", "time", "share", "rtf", "in", "out", "queue max/cap", "dropped", "p50", "p95"]
        var rows = [header]
        for node in nodes {
            let c = node.counters
            rows.append([
                node.id, node.type, Self.seconds(c.processingSeconds),
                String(format: "%.1f%%", timeShare(of: node) * 100),
                node.realTimeFactor.map { String(format: "%.4f", $0) } ?? "-",
                node.isSource ? "-" : Self.frames(c.framesIn, buffers: c.buffersIn, events: c.eventsIn),
                Self.frames(c.framesOut, buffers: c.buffersOut, events: c.eventsOut),
                node.queue.map { "\($0.maxDepth)/\($0.capacity)" } ?? "-",
                String(node.queue?.droppedFrames ?? 0),
                c.latency.quantile(0.5).map(Self.seconds) ?? "-",
                c.latency.quantile(0.95).map(Self.seconds) ?? "-",
            ])
        }
        let widths = header.indices.map { column in rows.map { $0[column].count }.max() ?? 0 }
        var lines = rows.map { row in
            row.enumerated().map { column, cell in
                column < 2 ? cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                    : String(repeating: " ", count: widths[column] - cell.count) + cell
            }.joined(separator: "  ")
        }
        for node in nodes {
            guard let speech = node.speech, speech.speechEndToFinal.count > 0 else { continue }
            var line = "\(node.id): speech end → final p50 \(Self.seconds(speech.speechEndToFinal.quantile(0.5)!)) "
                + "p95 \(Self.seconds(speech.speechEndToFinal.quantile(0.95)!)) over \(speech.speechEndToFinal.count) finals"
            if let p50 = speech.firstPartial.quantile(0.5), let p95 = speech.firstPartial.quantile(0.95) {
                line += "; first partial p50 \(Self.seconds(p50)) p95 \(Self.seconds(p95))"
            }
            lines.append(line)
        }
        lines.append(String(format: "wall %.3f s", wallSeconds))
        return lines.joined(separator: "\n")
    }

    private static func seconds(_ value: Double) -> String {
        if value >= 1 { return String(format: "%.2fs", value) }
        if value >= 0.001 { return String(format: "%.1fms", value * 1000) }
        return String(format: "%.0fµs", value * 1e6)
    }

    private static func frames(_ frames: Int64, buffers: Int64, events: Int64) -> String {
        var parts: [String] = []
        if buffers > 0 { parts.append("\(frames)f") }
        if events > 0 { parts.append("\(events)e") }
        return parts.isEmpty ? "0" : parts.joined(separator: " ")
    }
}
