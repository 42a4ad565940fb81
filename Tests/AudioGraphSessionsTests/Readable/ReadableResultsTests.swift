import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 18, item 5: `RunSummary`, `SourceProgress` and `BatchFileResult` print readably
/// (`CustomStringConvertible`) instead of as raw structs, and `NodeRegistry.Entry.originKind` tells built-in,
/// plugin and app types apart for `audiograph nodes`.
@Suite("readable results", .ownThreads)
struct ReadableResultsTests {
    /// `tone -> rec`, built with the test nodes.
    static func toneGraph(_ tone: String, _ recorder: String) throws -> Graph {
        var registry = NodeRegistry.builtins
        try registry.register(ToneSourceNode.self, origin: "tests")
        try registry.register(RecordingSinkNode.self, origin: "tests")
        let spec = try ConfigLoader.parse(#"{"version": 1, "nodes": {"tone": "# + tone + #", "rec": "# + recorder + #"}, "links": ["tone -> rec"]}"#,
                                          baseDirectory: "/")
        return try GraphBuilder(registry: registry).build(spec)
    }

    @Test("print(summary) after a run: seconds of audio, the source, wall time and the real-time factor")
    func runSummary() throws {
        let session = TranscriptionSession(graph: try Self.toneGraph(#"{"type": "test-tone", "seconds": 2}"#, #"{"type": "test-recorder"}"#))
        let summary = try session.run()
        let text = "\(summary)"
        #expect(text.hasPrefix("done: 2.0 s of audio from tone in "), "\(text)")
        #expect(text.hasSuffix("x real time)"), "\(text)")
        #expect(!text.contains("RunSummary("), "\(text)")
        #expect("\(summary.sources[0])" == "tone: 2.0 s of 2.0 s (100%)")
    }

    @Test("validate's listing: a sink's line says the format it takes, no dangling arrow")
    func sinkLine() throws {
        let summary = try Self.toneGraph(#"{"type": "test-tone"}"#, #"{"type": "test-recorder", "queue": 64}"#).summary
        let line = summary.split(separator: "\n").first { $0.contains("test-recorder") }.map(String.init) ?? ""
        #expect(line.hasSuffix("takes 16000 Hz mono  [queued 64]"), "\(summary)")
        #expect(!summary.contains("->  ["), "\(summary)")
    }

    @Test("origin kinds: built-in, a plugin's path, an app's name")
    func originKinds() throws {
        var registry = NodeRegistry.builtins
        try registry.register(ToneSourceNode.self, origin: "my app")
        try registry.register(RecordingSinkNode.self, origin: "/opt/plugins/libgain.so")
        #expect(registry.entry(for: "resampler")?.originKind == .builtIn)
        #expect(registry.entry(for: "test-tone")?.originKind == .app)
        #expect(registry.entry(for: "test-recorder")?.originKind == .plugin)
    }
}

/// Issue 18 (terminal output): rates below 1x keep a decimal.
@Suite("RealTimeFactor", .ownThreads)
struct RealTimeFactorTests {
    @Test("15.8 → 16x, 2.46 → 2.5x, 0.3 → 0.3x, 0.04 → 0.04x")
    func format() {
        #expect(RealTimeFactor.format(15.8) == "16x")
        #expect(RealTimeFactor.format(2.46) == "2.5x")
        #expect(RealTimeFactor.format(0.3) == "0.3x")
        #expect(RealTimeFactor.format(0.04) == "0.04x")
    }
}
