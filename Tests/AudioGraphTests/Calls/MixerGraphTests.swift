import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 35, item 5 through the real builder and runtime: `mixer` takes any number of links and a call's
/// participants as they come and go, tells apart branches whose nodes have the same ids, and ends with the call.
@Suite(.ownThreads) struct MixerGraphTests {
    static func readAll(_ path: String) throws -> (samples: [Float], rate: Int) {
        let reader = try SoundFileReader(path: path)
        defer { reader.close() }
        var samples: [Float] = []
        var block = [Float](repeating: 0, count: 4096 * reader.channels)
        while true {
            let frames = try block.withUnsafeMutableBufferPointer { try reader.read(into: $0, maxFrames: 4096) }
            if frames == 0 { break }
            samples += block[0..<(frames * reader.channels)]
        }
        return (samples, reader.sampleRate)
    }

    static func writeWAV(_ path: String, rate: Int, seconds: Double, value: Float) throws {
        let writer = try SoundFileWriter(path: path, sampleRate: rate, channels: 1, container: .wav, sampleFormat: .float)
        let samples = [Float](repeating: value, count: Int(Double(rate) * seconds))
        try samples.withUnsafeBufferPointer { try writer.write($0) }
        try writer.close()
    }

    @Test func twoFilesOfDifferentRatesMixIntoOneRecording() async throws {
        let folder = try TemporaryFolder(prefix: "mixer")
        try Self.writeWAV(folder.path("a.wav"), rate: 16000, seconds: 2, value: 0.25)
        try Self.writeWAV(folder.path("b.wav"), rate: 44100, seconds: 1, value: 0.5)
        try folder.write("mix.json", """
            {"version": 1,
             "nodes": {"a": {"type": "file-source", "path": "a.wav"}, "b": {"type": "file-source", "path": "b.wav"},
                       "mix": {"type": "mixer", "sampleRate": 16000},
                       "out": {"type": "wav-sink", "path": "out.wav", "sampleFormat": "float"}},
             "links": ["a -> mix", "b -> mix", "mix -> out"]}
            """)
        let graph = try loadGraph(configPath: folder.path("mix.json"), environment: [:])
        #expect(graph.notes.contains { $0.contains("\"b\" and \"mix\"") }, "b's 44.1 kHz got a resampler: \(graph.notes)")
        _ = try GraphRuntime(graph: graph).run()
        let (samples, rate) = try Self.readAll(folder.path("out.wav"))
        #expect(rate == 16000 && samples.count == 32000, "as long as the longer file")
        #expect(samples[200..<15800].allSatisfy { abs($0 - 0.75) < 0.01 }, "both, summed, for the first second")
        #expect(samples[16200...].allSatisfy { abs($0 - 0.25) < 1e-6 }, "then a alone")
    }

    @Test func anInputOfAnyOtherNodeStillTakesOneLink() throws {
        let folder = try TemporaryFolder(prefix: "mixer")
        try Self.writeWAV(folder.path("a.wav"), rate: 16000, seconds: 0.1, value: 0.25)
        try folder.write("two.json", """
            {"version": 1,
             "nodes": {"a": {"type": "file-source", "path": "a.wav"}, "b": {"type": "file-source", "path": "a.wav"},
                       "out": {"type": "wav-sink", "path": "out.wav"}},
             "links": ["a -> out", "b -> out"]}
            """)
        #expect {
            try loadGraph(configPath: folder.path("two.json"), environment: [:])
        } throws: { error in
            "\(error)".contains("links[1]") && "\(error)".contains("an input takes one link")
        }
    }

    /// Alice and Bob's branches have the same node ids; each is a stream of its own in the mix, placed where it
    /// arrived on the call's clock (a manual clock here), and the recording ends with the call.
    @Test func participantsAreMixedWhereTheyArrivedAndTheRecordingEndsWithTheCall() async throws {
        let folder = try TemporaryFolder(prefix: "mixer")
        try folder.write("call.json", """
            {"version": 1,
             "participant": {"nodes": {"in": {"type": "participant-source"}}, "links": ["in -> mix"]},
             "nodes": {"mix": {"type": "mixer", "sampleRate": 16000, "delayMs": 500},
                       "out": {"type": "wav-sink", "path": "call.wav", "sampleFormat": "float"}},
             "links": ["mix -> out"]}
            """)
        let graph = try loadGraph(configPath: folder.path("call.json"), environment: [:])
        let clock = ManualClock()
        let runtime = GraphRuntime(graph: graph, clock: clock)
        let (_, result) = runtime.start()
        try await runtime.waitUntilStarted()
        clock.advance(by: 10)
        let format = AudioFormat(sampleRate: 16000, channels: 1)
        let alice = ParticipantAudioFeed(participant: "alice", format: format)
        let bob = ParticipantAudioFeed(participant: "bob", format: format)
        let branches = [try runtime.addParticipant(alice), try runtime.addParticipant(bob)]
        // Each sends half a second that ends now: both land at 9.5–10 s, summed.
        #expect(alice.write([Float](repeating: 0.2, count: 8000)))
        #expect(bob.write([Float](repeating: 0.3, count: 8000)))
        alice.close()
        bob.close()
        for branch in branches { #expect(await branch.waitUntilEnded() == nil) }
        runtime.endCall()
        _ = try await result.value

        let (samples, _) = try Self.readAll(folder.path("call.wav"))
        #expect(samples.count == 160_000, "the recording lasts the call: 10 s")
        #expect(samples[0..<152_000].allSatisfy { $0 == 0 }, "silence before anyone spoke")
        #expect(samples[152_000...].allSatisfy { abs($0 - 0.5) < 1e-6 }, "both at once, not one after the other")
    }
}
