import AudioGraph
import AudioGraphTestKit
import ClipCounter
import Testing

/// The clip counter driven alone with AudioGraphTestKit's `NodeHarness`: push samples, finish, read the events.
@Suite("clip-counter")
struct ClipCounterNodeTests {
    let format = AudioFormat(sampleRate: 16000, channels: 1)

    /// Quiet, then `loud` seconds at full scale starting at `at`, in `seconds` of audio.
    func burst(at start: Double, loud: Double, seconds: Double, amplitude: Float = 1) -> [Float] {
        var samples = Signals.sine(frequency: 440, seconds: seconds, sampleRate: 16000, amplitude: 0.1)
        let first = Int(start * 16000)
        for i in first..<first + Int(loud * 16000) { samples[i] = amplitude }
        return samples
    }

    @Test("passes the audio through untouched")
    func passesAudioThrough() throws {
        let harness = try NodeHarness(type: ClipCounterNode.self, input: format)
        let samples = burst(at: 0.5, loud: 0.1, seconds: 1)
        try harness.push(samples, framesPerBuffer: 300)
        try harness.finish()
        #expect(harness.samples() == samples)
    }

    @Test("a full-scale burst is one run, with its start, end and length")
    func oneRun() throws {
        let harness = try NodeHarness(type: ClipCounterNode.self, id: "clip", input: format)
        try harness.push(burst(at: 0.5, loud: 0.25, seconds: 1), framesPerBuffer: 1000)
        try harness.finish()
        let runs = harness.events.compactMap(ClipRun.init)
        #expect(runs == [ClipRun(start: 0.5, end: 0.75, frames: 4000, peakDb: 0)])
        #expect(harness.events.allSatisfy { $0.node == "clip" })
        let summary = try #require(harness.events.last.flatMap(ClipSummary.init))
        #expect(summary.runs == 1 && summary.frames == 4000 && summary.peakDb == 0)
    }

    @Test("the run is reported once it has ended: stamped with its end, in stream order")
    func reportedAtTheEnd() throws {
        let harness = try NodeHarness(type: ClipCounterNode.self, input: format)
        let samples = burst(at: 0.5, loud: 0.25, seconds: 1)
        // Up to the end of the burst: the run may still go on, so nothing is reported yet.
        try harness.push(Array(samples[..<12000]), framesPerBuffer: 1000)
        #expect(harness.events.isEmpty)
        // 20 ms (the default minGapMs) of quiet later, it has ended.
        try harness.push(Array(samples[12000...]), framesPerBuffer: 1000, startingAt: 12000)
        let clip = try #require(harness.events.first)
        #expect(clip.time == 0.75)
        try harness.finish()
    }

    @Test("quiet gaps shorter than minGapMs join two bursts into one run")
    func minGapJoinsRuns() throws {
        var samples = burst(at: 0.2, loud: 0.1, seconds: 1)
        for i in Int(0.31 * 16000)..<Int(0.4 * 16000) { samples[i] = 1 }   // a 10 ms gap, then more

        let joined = try NodeHarness(type: ClipCounterNode.self, parameters: ["minGapMs": 20], input: format)
        try joined.push(samples)
        try joined.finish()
        #expect(joined.events.compactMap(ClipRun.init).count == 1)

        let split = try NodeHarness(type: ClipCounterNode.self, parameters: ["minGapMs": 5], input: format)
        try split.push(samples)
        try split.finish()
        #expect(split.events.compactMap(ClipRun.init).count == 2)
    }

    @Test("thresholdDb: below it nothing counts; the summary still reports the peak")
    func threshold() throws {
        let quiet = burst(at: 0.5, loud: 0.1, seconds: 1, amplitude: 0.5)   // -6.02 dBFS
        let strict = try NodeHarness(type: ClipCounterNode.self, input: format)   // -1 dBFS
        try strict.push(quiet)
        try strict.finish()
        #expect(strict.events.compactMap(ClipRun.init).isEmpty)
        let summary = try #require(strict.events.last.flatMap(ClipSummary.init))
        #expect(summary.runs == 0 && abs(summary.peakDb - -6.021) < 0.01)

        let loose = try NodeHarness(type: ClipCounterNode.self, parameters: ["thresholdDb": -7], input: format)
        try loose.push(quiet)
        try loose.finish()
        #expect(loose.events.compactMap(ClipRun.init).count == 1)
    }

    @Test("a run still open at end of stream is reported by finish")
    func openRunAtTheEnd() throws {
        let harness = try NodeHarness(type: ClipCounterNode.self, input: format)
        try harness.push(burst(at: 0.9, loud: 0.1, seconds: 1))
        #expect(harness.events.isEmpty)
        try harness.finish()
        #expect(harness.events.compactMap(ClipRun.init) == [ClipRun(start: 0.9, end: 1, frames: 1600, peakDb: 0)])
    }

    @Test("any channel over the threshold makes the frame count")
    func stereo() throws {
        let stereo = AudioFormat(sampleRate: 16000, channels: 2)
        var samples = [Float](repeating: 0, count: 16000 * 2)
        for frame in 8000..<8160 { samples[frame * 2 + 1] = -1 }   // right channel only, negative
        let harness = try NodeHarness(type: ClipCounterNode.self, input: stereo)
        try harness.push(samples)
        try harness.finish()
        #expect(harness.events.compactMap(ClipRun.init) == [ClipRun(start: 0.5, end: 0.51, frames: 160, peakDb: 0)])
    }

    @Test("parameters are validated against the declaration")
    func badParameter() {
        #expect(throws: GraphError.self) {
            try NodeHarness(type: ClipCounterNode.self, parameters: ["thresholdDb": 3], input: format)
        }
    }
}
