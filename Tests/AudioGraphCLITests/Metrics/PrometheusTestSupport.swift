import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prometheus text parsed by a real parser: `prometheus_client.parser.text_string_to_metric_families` of the
/// Debian package python3-prometheus-client (scripts/install-deps.sh), run with `/usr/bin/python3` (a `python3`
/// on PATH may be a pyenv shim without it). When the module is missing the tests that need it are skipped with
/// a note, unless `AUDIOGRAPH_REQUIRE_PROMETHEUS_PARSER=1`, where they run and fail.
enum PrometheusParser {
    static let python = "/usr/bin/python3"
    static let required = ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_PROMETHEUS_PARSER"] == "1"

    /// Whether `/usr/bin/python3` can import the parser (asked once).
    static let available: Bool = {
        guard FileManager.default.isExecutableFile(atPath: python) else { return false }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import prometheus_client.parser"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return false
        }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Run the test when the parser is there, or when it is required (then its absence fails the test).
    static var enabled: Bool { available || required }

    static let skipNote = Comment(rawValue: "/usr/bin/python3 cannot import prometheus_client: install python3-prometheus-client "
        + "(scripts/install-deps.sh; set AUDIOGRAPH_REQUIRE_PROMETHEUS_PARSER=1 to fail instead of skipping)")

    private static let script = """
        import json, sys
        from prometheus_client.parser import text_string_to_metric_families
        text = open(sys.argv[1], encoding="utf-8").read()
        families = []
        for family in text_string_to_metric_families(text):
            families.append({"name": family.name, "type": family.type, "help": family.documentation,
                             "samples": [{"name": s.name, "labels": s.labels, "value": s.value} for s in family.samples]})
        print(json.dumps(families, allow_nan=False))
        """

    struct Sample: Sendable, CustomStringConvertible {
        var name: String
        var labels: [String: String]
        var value: Double
        var description: String { "\(name)\(labels.sorted { $0.key < $1.key }) \(value)" }
    }

    struct Family: Sendable {
        /// As the parser names it: a counter without its `_total`.
        var name: String
        var type: String
        var help: String
        var samples: [Sample]
    }

    /// Parses `text` with the real parser (written to a file in `directory` first).
    static func parse(_ text: String, in directory: TemporaryFolder) async throws -> [Family] {
        guard available else {
            throw HarnessError("\(python) cannot import prometheus_client.parser: install python3-prometheus-client "
                + "(scripts/install-deps.sh)")
        }
        let file = try directory.write("scrape-\(UUID().uuidString).prom", text)
        let result = try await Harness.run(URL(fileURLWithPath: python), ["-c", script, file], in: directory)
        guard result.status == 0, let data = result.stdout.data(using: .utf8),
              let array = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw HarnessError("the Prometheus parser refused the text (exit \(result.status)): \(result.stderr)\n\(text)")
        }
        return array.map { object in
            Family(name: object["name"] as? String ?? "", type: object["type"] as? String ?? "",
                   help: object["help"] as? String ?? "",
                   samples: (object["samples"] as? [[String: Any]] ?? []).map { sample in
                       Sample(name: sample["name"] as? String ?? "", labels: sample["labels"] as? [String: String] ?? [:],
                              value: (sample["value"] as? NSNumber)?.doubleValue ?? .nan)
                   })
        }
    }

    /// What the format requires beyond parsing: each family once (its samples together), typed, with help; each
    /// `# TYPE` line once; every histogram series with buckets that never decrease as `le` grows, a `+Inf`
    /// bucket equal to its `_count`, and a `_sum`.
    static func checkStructure(_ families: [Family], text: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let names = families.map(\.name)
        #expect(Set(names).count == names.count, "a family appears twice (samples not together): \(names)",
                sourceLocation: sourceLocation)
        let typeLines = text.split(separator: "\n").filter { $0.hasPrefix("# TYPE ") }
        #expect(Set(typeLines).count == typeLines.count, "a # TYPE line repeats", sourceLocation: sourceLocation)
        #expect(text.hasSuffix("\n"), "the text ends in a newline", sourceLocation: sourceLocation)
        for family in families {
            #expect(["counter", "gauge", "histogram"].contains(family.type),
                    "\(family.name) is \(family.type): a sample outside its family, or no # TYPE", sourceLocation: sourceLocation)
            #expect(!family.help.isEmpty, "\(family.name) has no # HELP", sourceLocation: sourceLocation)
            #expect(!family.samples.isEmpty, "\(family.name) has no samples", sourceLocation: sourceLocation)
            if family.type == "counter" {
                for sample in family.samples {
                    #expect(sample.name == family.name + "_total" && sample.value >= 0, "\(sample)", sourceLocation: sourceLocation)
                }
            }
            guard family.type == "histogram" else { continue }
            var series: [[String: String]: [Sample]] = [:]
            for sample in family.samples {
                var key = sample.labels
                key["le"] = nil
                series[key, default: []].append(sample)
            }
            for (labels, samples) in series {
                let buckets = samples.filter { $0.name == family.name + "_bucket" }
                    .map { (le: Double($0.labels["le"] ?? "") ?? .nan, value: $0.value) }
                #expect(buckets.allSatisfy { !$0.le.isNaN }, "\(family.name)\(labels): an le that is not a number",
                        sourceLocation: sourceLocation)
                let sorted = buckets.sorted { $0.le < $1.le }
                #expect(sorted.map(\.le) == buckets.map(\.le), "\(family.name)\(labels): buckets in ascending le",
                        sourceLocation: sourceLocation)
                #expect(zip(sorted, sorted.dropFirst()).allSatisfy { $0.value <= $1.value },
                        "\(family.name)\(labels): cumulative buckets never decrease: \(sorted)", sourceLocation: sourceLocation)
                let count = samples.first { $0.name == family.name + "_count" }?.value
                #expect(sorted.last?.le == .infinity && sorted.last?.value == count,
                        "\(family.name)\(labels): +Inf bucket equals _count (\(String(describing: count)))",
                        sourceLocation: sourceLocation)
                #expect(samples.contains { $0.name == family.name + "_sum" }, "\(family.name)\(labels): _sum",
                        sourceLocation: sourceLocation)
            }
        }
    }
}

extension Array where Element == PrometheusParser.Family {
    subscript(family name: String) -> PrometheusParser.Family? { first { $0.name == name } }

    /// The value of sample `sample` (default: the family's own name, `_total` for a counter) whose labels
    /// include `labels`.
    func value(_ family: String, sample: String? = nil, _ labels: [String: String] = [:]) -> Double? {
        guard let found = self[family: family] else { return nil }
        let name = sample ?? (found.type == "counter" ? family + "_total" : family)
        return found.samples.first { candidate in
            candidate.name == name && labels.allSatisfy { candidate.labels[$0.key] == $0.value }
        }?.value
    }
}

/// A running `audiograph` (a worker with `--metrics-port`) whose stderr is read as it comes, started once it
/// printed "audiograph: metrics at http://HOST:PORT/metrics".
///
/// `@unchecked Sendable`: `Pipe` is not `Sendable`; it is set once here and only read.
final class MetricsProcess: @unchecked Sendable {
    /// `http://127.0.0.1:PORT/metrics`.
    let metricsURL: String
    let stderr: PipeReader
    private let process: ChildProcess
    private let pipe: Pipe
    private let exit: Task<Harness.Exit, any Error>

    private init(metricsURL: String, stderr: PipeReader, process: ChildProcess, pipe: Pipe, exit: Task<Harness.Exit, any Error>) {
        self.metricsURL = metricsURL
        self.stderr = stderr
        self.process = process
        self.pipe = pipe
        self.exit = exit
    }

    static func start(_ arguments: [String], in directory: TemporaryFolder) async throws -> MetricsProcess {
        let process = ChildProcess()
        process.executableURL = try Harness.binary()
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        process.standardInput = FileHandle.nullDevice
        let started = try await Harness.startAnnounced(process, prefix: "audiograph: metrics at ",
                                                       name: "audiograph \(arguments.joined(separator: " "))")
        return MetricsProcess(metricsURL: started.announcement, stderr: started.stderr, process: process,
                              pipe: started.stderrPipe, exit: started.exit)
    }

    /// Sends `signal` and waits for the exit; everything written on stderr.
    func stop(_ signal: Int32 = SIGTERM) async throws -> (exit: Harness.Exit, stderr: String) {
        process.signal(signal)
        let status = try await exit.value
        return (status, String(decoding: await stderr.all(), as: UTF8.self))
    }
}
