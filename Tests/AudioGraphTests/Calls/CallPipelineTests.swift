import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 35, items 2 and 4 with the real nodes: two participants' speech, each through a branch of the config's
/// `participant` block (resampler → VAD → pocketsphinx) into one JSON caption file and one store, labelled by
/// speaker. The audio goes in through `ParticipantAudioFeed`, as the WebSocket endpoint hands it over.
@Suite(.ownThreads) struct CallPipelineTests {
    static let call = """
        {"version": 1,
         "session": {"id": "standup", "autoStartTranscription": true, "captions": true, "participants": ["alice", "bob"]},
         "participant": {
           "nodes": {"in": {"type": "participant-source"}, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
                     "vad": {"type": "vad"}, "asr": {"type": "recognizer", "engine": "pocketsphinx"}},
           "links": ["in -> rs -> vad -> asr -> captions", "asr -> store"]},
         "nodes": {"captions": {"type": "caption-sink", "format": "json", "path": "call.json"},
                   "store": {"type": "transcript-store", "path": "t.sqlite"}},
         "links": []}
        """

    /// `seconds` of the bundled call from `start`, as Float32 samples at `rate` Hz, `channels` interleaved.
    static func speech(from start: Int, seconds: Int, rate: Int, channels: Int, in folder: TemporaryFolder) async throws -> [Float] {
        let call = packageRoot.appendingPathComponent("examples/audio/call.flac").path
        let raw = folder.path("speech-\(start)-\(rate).f32")
        let sox = ChildProcess()
        sox.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        sox.arguments = ["sox", call, "-r", String(rate), "-c", String(channels), "-e", "floating-point", "-b", "32", "-t", "raw",
                         raw, "trim", String(start), String(seconds)]
        sox.standardInput = nil
        try sox.run()
        _ = await sox.exited()  // awaited, not waited for: no thread of the pool is held
        let data = try Data(contentsOf: URL(fileURLWithPath: raw))
        return data.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
    }

    @Test func twoParticipantsAreTranscribedAndLabelled() async throws {
        let folder = try TemporaryFolder(prefix: "call")
        try folder.write("call.json.config", Self.call)
        let graph = try loadGraph(configPath: folder.path("call.json.config"), environment: [:])
        let session = TranscriptionSession(graph: graph)
        let (_, result) = session.start()
        try await session.waitUntilStarted()
        // Alice at 16 kHz mono, Bob at 48 kHz stereo (his branch's resampler brings it to 16 kHz mono).
        let alice = ParticipantAudioFeed(participant: "alice", format: AudioFormat(sampleRate: 16000, channels: 1))
        let bob = ParticipantAudioFeed(participant: "bob", format: AudioFormat(sampleRate: 48000, channels: 2))
        let aliceSpeech = try await Self.speech(from: 0, seconds: 8, rate: 16000, channels: 1, in: folder)
        let bobSpeech = try await Self.speech(from: 16, seconds: 8, rate: 48000, channels: 2, in: folder)
        let branches = [try session.addParticipant(alice), try session.addParticipant(bob)]
        // Both send at once, in 100 ms messages, from threads of their own as two sockets would.
        await withTaskGroup(of: Void.self) { group in
            for (feed, samples, frame) in [(alice, aliceSpeech, 1600), (bob, bobSpeech, 4800 * 2)] {
                group.addTask {
                    var offset = 0
                    while offset < samples.count {
                        _ = feed.write(Array(samples[offset..<min(offset + frame, samples.count)]))
                        offset += frame
                    }
                    feed.close()
                }
            }
        }
        for branch in branches { #expect(await branch.waitUntilEnded() == nil) }
        session.endCall()
        _ = try await result.value

        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder.path("call.json")))) as? [String: Any])
        let utterances = try #require(document["utterances"] as? [[String: Any]])
        let bySpeaker = Dictionary(grouping: utterances) { $0["speaker"] as? String ?? "-" }
        #expect(Set(bySpeaker.keys) == ["alice", "bob"], "\(utterances)")
        let aliceWords = (bySpeaker["alice"] ?? []).compactMap { $0["text"] as? String }.joined(separator: " ")
        let bobWords = (bySpeaker["bob"] ?? []).compactMap { $0["text"] as? String }.joined(separator: " ")
        #expect(aliceWords.contains("leisure"), "alice: \(aliceWords)")
        #expect(bobWords.contains("forward"), "bob: \(bobWords)")

        let store = try SQLiteTranscriptStore(readingFrom: folder.path("t.sqlite"))
        defer { store.close() }
        let rows = try store.transcripts(sessionID: "standup", after: nil, limit: 10)
        #expect(rows.count == 1, "one transcript for the call")
        let tid = try #require(rows.first?[StoreColumn.tid]?.description)
        let stored = try #require(try store.transcript(tid: tid)?.utterances)
        #expect(Set(stored.compactMap(\.speaker)) == ["alice", "bob"] && stored.count == utterances.count)
    }
}
