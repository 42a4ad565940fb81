/// Issue 35, items 1, 2 and 4 end to end: `audiograph serve --run call.json` with a participant block; Alice and
/// Bob each send speech over their own WebSocket (python3-websockets, a real RFC 6455 client, with their own
/// tokens); their captions reach a viewer labelled by speaker, and the stored transcript keeps every final with
/// its speaker once serve stops.
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

@Suite("calls: serve --run takes participants' audio over WebSockets")
struct ServeCallTests {
    static let client = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AudioGraphServerTests/WebSocket/ws_client.py").path

    static func config(store: String) -> String {
        """
        {"version": 1,
         "session": {"id": "standup", "room": "daily", "autoStartTranscription": true, "captions": true,
                     "participants": ["alice", "bob"]},
         "participant": {
           "nodes": {"in": {"type": "participant-source"}, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
                     "vad": {"type": "vad"}, "asr": {"type": "recognizer", "engine": "pocketsphinx"}},
           "links": ["in -> rs -> vad -> asr -> store"]},
         "nodes": {"store": {"type": "transcript-store", "path": "\(store)"}},
         "links": []}
        """
    }

    /// A client plan: `seconds` of the bundled call from `start` as s16le 16 kHz mono, in 100 ms messages.
    static func plan(port: UInt16, participant: String, token: String, start: Int, in dir: TemporaryFolder) async throws -> String {
        let raw = "\(participant).raw"
        let sox = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["sox", BatchFixtures.callFLAC, "-r", "16000", "-c", "1", "-e", "signed-integer", "-b", "16",
                                         "-t", "raw", raw, "trim", String(start), "8"], in: dir)
        #expect(sox.status == 0, "\(sox)")
        let bytes = try Data(contentsOf: dir.url.appendingPathComponent(raw))
        let messages = stride(from: 0, to: bytes.count, by: 3200).map { offset in
            ["binary": bytes[offset..<min(offset + 3200, bytes.count)].base64EncodedString()]
        }
        let plan: [String: Any] = [
            "url": "ws://127.0.0.1:\(port)/v1/sessions/standup/participants/\(participant)/audio?sampleRate=16000",
            "headers": ["Authorization": "Bearer \(token)"], "messages": messages, "then": "close",
        ]
        let name = "\(participant)-plan.json"
        try JSONSerialization.data(withJSONObject: plan).write(to: dir.url.appendingPathComponent(name))
        return name
    }

    @Test func twoParticipantsCaptionedAndStoredBySpeaker() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try dir.write("call.json", Self.config(store: fixture.storePath))
        let server = try await ServeProcess.start(fixture.serveArguments + ["--max-ingest-rate", "20", "--run", "call.json"], in: dir)
        let finals: [[String: Any]]
        do {
            let viewer = try await ServeEventStream(port: server.port, path: "/v1/sessions/standup/captions", token: fixture.aliceToken)
            defer { viewer.disconnect() }
            _ = await viewer.head()
            let plans = [try await Self.plan(port: server.port, participant: "alice", token: fixture.aliceToken, start: 0, in: dir),
                         try await Self.plan(port: server.port, participant: "bob", token: fixture.bobToken, start: 16, in: dir)]
            // Both at once, each on its own socket.
            async let aliceSent = Harness.run(URL(fileURLWithPath: "/usr/bin/python3"), [Self.client, plans[0]], in: dir)
            async let bobSent = Harness.run(URL(fileURLWithPath: "/usr/bin/python3"), [Self.client, plans[1]], in: dir)
            for sent in try await [aliceSent, bobSent] {
                #expect(sent.status == 0 && sent.stdout.contains("\"closed\""), "\(sent)")
            }
            let heard = await viewer.waitForEvents(timeout: 60) { events in
                let speakers = Set(events.compactMap(\.object).filter { $0["type"] as? String == "final" }.compactMap { $0["speaker"] as? String })
                return speakers == ["alice", "bob"]
            }
            #expect(heard, "finals of both speakers reach the viewer: \(viewer.events)")
            finals = viewer.events.compactMap(\.object).filter { $0["type"] as? String == "final" }
        } catch {
            _ = try? await server.stop()
            throw error
        }
        let exit = try await server.stop()
        #expect(exit.isClean, "\(exit)")
        let alice = finals.filter { $0["speaker"] as? String == "alice" }.compactMap { $0["text"] as? String }.joined(separator: " ")
        let bob = finals.filter { $0["speaker"] as? String == "bob" }.compactMap { $0["text"] as? String }.joined(separator: " ")
        #expect(alice.contains("leisure") && bob.contains("forward"), "alice: \(alice) | bob: \(bob)")

        let store = try SQLiteTranscriptStore(readingFrom: fixture.storePath)
        defer { store.close() }
        let tid = try #require(try store.transcripts(sessionID: "standup", after: nil, limit: 100)
            .compactMap { $0[StoreColumn.tid]?.description }.first { !$0.hasPrefix("standup-") })
        let stored = try #require(try store.transcript(tid: tid)?.utterances)
        #expect(Set(stored.compactMap(\.speaker)) == ["alice", "bob"], "\(stored)")
    }
}
