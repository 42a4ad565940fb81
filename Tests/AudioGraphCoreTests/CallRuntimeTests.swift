@testable import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// `test-transcriber`: passes audio on and makes one final transcript per buffer ("N frames").
final class BlockTranscriberNode: AudioNode {
    static let descriptor = NodeDescriptor(
        type: "test-transcriber", summary: "One final per buffer.", category: .filter, parameters: [],
        inputs: [.init(requires: [.audio])], outputs: [.init(produces: [.transcript], forwardsInput: true)])
    private var segment = 0
    init(configuration: NodeConfiguration) throws {}
    func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {
        context.emit(buffer)
        segment += 1
        context.emit(.transcript(TranscriptUpdate(segment: segment, revision: 1, isFinal: true, start: buffer.startTime,
                                                  end: buffer.endTime, text: "\(buffer.frameCount) frames")),
                     at: buffer.endTime)
    }
}

/// Issue 35, item 2: a call's per-participant branch, declared once in the config's `participant` block, added
/// while the graph runs for each participant who connects, and drained when they leave, without disturbing
/// the others; the shared nodes (caption sinks, the store) end only when the call does.
@Suite struct CallRuntimeTests {
    static let call = """
        {"version": 1,
         "participant": {
           "nodes": {"in": {"type": "participant-source"}, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
                     "tx": {"type": "test-transcriber"}},
           "links": ["in -> rs -> tx -> out"]},
         "nodes": {"out": {"type": "test-recorder"}},
         "links": []}
        """

    static func received(_ command: ControlCommand, _ recorder: RecordingSinkNode) -> Bool {
        recorder.frames.contains { if case .control(command) = $0 { true } else { false } }
    }

    static func transcripts(_ recorder: RecordingSinkNode) -> [TranscriptUpdate] {
        recorder.events.compactMap { if case .transcript(let update) = $0.payload { update } else { nil } }
    }

    @Test func participantsJoinAndLeaveWhileTheCallRuns() async throws {
        let graph = try buildGraph(Self.call)
        #expect(graph.nodes.map(\.id) == ["out"], "the graph's own nodes only")
        #expect(graph.participants?.sharedTargets == ["out": 1])
        let runtime = GraphRuntime(graph: graph, clock: ManualClock())
        let (_, result) = runtime.start()
        try await runtime.waitUntilStarted()
        let out = recorder(graph, "out")

        let alice = ParticipantAudioFeed(participant: "alice", format: AudioFormat(sampleRate: 16000, channels: 1))
        let bob = ParticipantAudioFeed(participant: "bob", format: AudioFormat(sampleRate: 48000, channels: 2))
        let aliceBranch = try runtime.addParticipant(alice)
        let bobBranch = try runtime.addParticipant(bob)
        #expect(alice.write([Float](repeating: 0.1, count: 1600)))
        #expect(bob.write([Float](repeating: 0.1, count: 4800 * 2)))
        alice.close()
        #expect(await aliceBranch.waitUntilEnded() == nil)
        // Alice has left; Bob goes on, and the shared recorder has not finished.
        #expect(bob.write([Float](repeating: 0.1, count: 9600 * 2)))
        bob.close()
        #expect(await bobBranch.waitUntilEnded() == nil)
        #expect(!out.finished, "the shared node waits for the call's end, not for the participants of the moment")

        // Carol joins after a steering command: she starts in the state after it.
        runtime.send(.stopTranscription)
        let carol = ParticipantAudioFeed(participant: "carol", format: AudioFormat(sampleRate: 16000, channels: 1))
        let carolBranch = try runtime.addParticipant(carol)
        carol.close()
        _ = await carolBranch.waitUntilEnded()

        runtime.endCall()
        _ = try await result.value
        #expect(out.finished)
        let finals = Self.transcripts(out)
        #expect(finals.filter { $0.speaker == "alice" }.map(\.text) == ["1600 frames"])
        #expect(finals.filter { $0.speaker == "bob" }.map(\.text) == ["1600 frames", "3200 frames"],
                "48 kHz stereo came through the block's resampler as 16 kHz mono")
        #expect(finals.allSatisfy { $0.speaker != nil })
        #expect(Self.received(.stopTranscription, out), "carol's branch started with transcription off")
        #expect(throws: GraphError.self) { try runtime.addParticipant(ParticipantAudioFeed(participant: "late", format: AudioFormat(sampleRate: 16000, channels: 1))) }
    }

    /// Issue 36, item 3: a participant who reconnects gets a new branch whose recognizer numbers its segments
    /// from 1 again; their segments stay apart from the first branch's, so neither the captions nor the store
    /// take the new sentence for one already shown.
    @Test func aReconnectedParticipantsSegmentsDoNotCollide() async throws {
        let graph = try buildGraph(Self.call)
        let runtime = GraphRuntime(graph: graph, clock: ManualClock())
        let (_, result) = runtime.start()
        try await runtime.waitUntilStarted()
        for frames in [1600, 800] {
            let alice = ParticipantAudioFeed(participant: "alice", format: AudioFormat(sampleRate: 16000, channels: 1))
            let branch = try runtime.addParticipant(alice)
            #expect(alice.write([Float](repeating: 0.1, count: frames)))
            alice.close()
            #expect(await branch.waitUntilEnded() == nil)
        }
        runtime.endCall()
        _ = try await result.value
        let finals = Self.transcripts(recorder(graph, "out"))
        #expect(finals.map(\.segment) == [1, 1 + SpeakerLabel.segmentsPerBranch], "\(finals)")
        #expect(finals.map(\.text) == ["1600 frames", "800 frames"])
    }

    @Test func cancelEndsTheCallAndEveryBranch() async throws {
        let graph = try buildGraph(Self.call)
        let runtime = GraphRuntime(graph: graph, clock: ManualClock())
        let (_, result) = runtime.start()
        try await runtime.waitUntilStarted()
        let feed = ParticipantAudioFeed(participant: "alice", format: AudioFormat(sampleRate: 16000, channels: 1))
        let branch = try runtime.addParticipant(feed)
        #expect(feed.write([Float](repeating: 0, count: 160)))
        runtime.cancel()
        _ = await branch.waitUntilEnded()
        let summary = try await result.value
        #expect(summary.interrupted && recorder(graph, "out").finished)
        #expect(!feed.write([0]), "the sender is told the branch has gone")
    }

    @Test func aGraphWithoutAParticipantBlockTakesNoParticipant() throws {
        let graph = try buildGraph(config(#""src": {"type": "test-tone", "seconds": 0.1}, "out": {"type": "test-recorder"}"#,
                                          links: #""src -> out""#))
        let runtime = GraphRuntime(graph: graph, clock: ManualClock())
        #expect(throws: GraphError.self) {
            try runtime.addParticipant(ParticipantAudioFeed(participant: "a", format: AudioFormat(sampleRate: 16000, channels: 1)))
        }
    }

    @Test("the participant block is checked before any audio flows", arguments: [
        (#""participant": {"nodes": {"rs": {"type": "resampler", "sampleRate": 16000}}, "links": ["rs -> out"]},"#, "participant.nodes"),
        (#""participant": {"nodes": {"out": {"type": "participant-source"}}, "links": []},"#, "participant.nodes.out"),
        (#""participant": {"nodes": {"in": {"type": "participant-source"}, "tx": {"type": "test-transcriber"}}, "links": ["in -> tx -> nowhere"]},"#, "participant.links[0]"),
        (#""participant": {"nodes": {"in": {"type": "participant-source"}, "t": {"type": "test-tone"}}, "links": ["in -> out"]},"#, "participant.nodes.t"),
        (#""participant": {"nodes": {"in": {"type": "participant-source"}}, "links": ["in -> out"], "extra": 1},"#, "participant.extra"),
    ])
    func badBlocks(_ block: String, _ location: String) {
        let json = "{\"version\": 1, \(block) \"nodes\": {\"out\": {\"type\": \"test-recorder\"}}, \"links\": []}"
        let error = buildError(json)
        #expect(error?.location.hasPrefix(location) == true, "\(String(describing: error))")
    }

    @Test func theGraphsLinksCannotReachTheBlock() {
        let json = """
            {"version": 1,
             "participant": {"nodes": {"in": {"type": "participant-source"}}, "links": ["in -> out"]},
             "nodes": {"src": {"type": "test-tone"}, "out": {"type": "test-recorder"}, "out2": {"type": "test-recorder"}},
             "links": ["src -> out2", "in -> out2"]}
            """
        #expect(buildError(json)?.location == "links[1]")
    }

    /// Fixed sources can be participants too: `speaker` on a source labels every transcript made from its audio.
    @Test func aSourcesSpeakerLabelsItsTranscripts() throws {
        let graph = try buildGraph(config(#""a": {"type": "test-tone", "seconds": 0.2, "speaker": "Alice"},"#
            + #""b": {"type": "test-tone", "seconds": 0.1, "speaker": "Bob"},"#
            + #""ta": {"type": "test-transcriber"}, "tb": {"type": "test-transcriber"}, "outA": {"type": "test-recorder"},"#
            + #""outB": {"type": "test-recorder"}"#, links: #""a -> ta -> outA", "b -> tb -> outB""#))
        #expect(graph.speakers == ["a": "Alice", "ta": "Alice", "outA": "Alice", "b": "Bob", "tb": "Bob", "outB": "Bob"])
        _ = try GraphRuntime(graph: graph, clock: ManualClock()).run()
        let finals = Self.transcripts(recorder(graph, "outA")) + Self.transcripts(recorder(graph, "outB"))
        #expect(!finals.isEmpty && finals.allSatisfy { $0.speaker == "Alice" || $0.speaker == "Bob" })
        #expect(Set(finals.compactMap(\.speaker)) == ["Alice", "Bob"])
    }

    @Test func onlyASourceNamesASpeaker() {
        let error = buildError(config(#""a": {"type": "test-tone"}, "t": {"type": "test-transcriber", "speaker": "X"},"#
            + #""out": {"type": "test-recorder"}"#, links: #""a -> t -> out""#))
        #expect(error?.location == "nodes.t.speaker")
        #expect(buildError(config(#""a": {"type": "test-tone", "speaker": ""}, "out": {"type": "test-recorder"}"#,
                                  links: #""a -> out""#))?.location == "nodes.a.speaker")
    }

    /// A call cancelled before it ran still ends (its shared nodes released), and a steering command sent while
    /// nobody is connected is kept for those who join, not refused.
    @Test func aCallCancelledFirstEndsAndCommandsWaitForNewcomers() async throws {
        let cancelled = GraphRuntime(graph: try buildGraph(Self.call), clock: ManualClock())
        cancelled.cancel()
        let summary = try cancelled.run()
        #expect(summary.interrupted)

        let graph = try buildGraph(Self.call)
        let runtime = GraphRuntime(graph: graph, clock: ManualClock())
        let (_, result) = runtime.start()
        try await runtime.waitUntilStarted()
        let outcome = Mutex<CommandDelivery?>(nil)
        runtime.send(.hideCaptions) { delivered in outcome.withLock { $0 = delivered } }
        #expect(outcome.withLock { $0 } == .delivered, "kept for the participants who join")
        let feed = ParticipantAudioFeed(participant: "dana", format: AudioFormat(sampleRate: 16000, channels: 1))
        let branch = try runtime.addParticipant(feed)
        feed.close()
        _ = await branch.waitUntilEnded()
        runtime.endCall()
        _ = try await result.value
        #expect(Self.received(.hideCaptions, recorder(graph, "out")))
    }
}
