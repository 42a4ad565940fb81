import AudioGraphPluginKit
import AudioGraphTestKit
import GainPlugin
import Testing

/// The gain node, driven one buffer at a time by the test kit's harness: no graph, no plugin loading.
@Suite struct GainNodeTests {
    let mono = AudioFormat(sampleRate: 16000, channels: 1)

    @Test func sixDecibelsDoublesTheAmplitude() throws {
        let harness = try NodeHarness(type: GainNode.self, parameters: ["gainDb": 6.0206], input: mono)
        try harness.push([0.1, -0.2, 0.25], framesPerBuffer: 2)
        for (out, expected) in zip(harness.samples(), [Float(0.2), -0.4, 0.5]) {
            #expect(abs(out - expected) < 1e-4)
        }
        #expect(harness.events.isEmpty)
        try harness.finish()
    }

    @Test func limitingClampsAndReportsEachClippedBuffer() throws {
        let harness = try NodeHarness(type: GainNode.self, parameters: ["gainDb": 20], input: mono)
        try harness.push([0.05, 0.5, -0.5, 0.01], framesPerBuffer: 2)
        for (out, expected) in zip(harness.samples(), [Float(0.5), 1, -1, 0.1]) {
            #expect(abs(out - expected) < 1e-6)
        }
        let clipped = harness.events.compactMap { event -> Double? in
            guard case .custom("clipped", _, let fields) = event.payload else { return nil }
            return fields["samples"]?.doubleValue
        }
        #expect(clipped == [1, 1])
    }

    @Test func withoutLimitSamplesGoPastFullScale() throws {
        let harness = try NodeHarness(type: GainNode.self, parameters: ["gainDb": 20, "limit": false], input: mono)
        try harness.push([0.5])
        #expect(abs(harness.samples()[0] - 5) < 1e-4)
        #expect(harness.events.isEmpty)
    }

    @Test func theDeclarationRefusesOutOfRangeGains() {
        #expect(throws: GraphError.self) { try NodeHarness(type: GainNode.self, parameters: ["gainDb": 100], input: mono) }
    }
}
