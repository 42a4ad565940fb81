/// Issue 14, item 5: `serve --run CONFIG` lost its outputs on SIGINT/SIGTERM: it exited 0 at once, leaving an
/// m4a without its moov atom, a WebVTT with only its header and a stored session without an end time. Under
/// `serve` a run now drains and finalizes as `audiograph run` does on Ctrl-C before the server answers `end` to
/// viewers and exits (0, as documented for serve).
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Security: serve --run finalizes its pipelines' outputs on SIGINT/SIGTERM (issue 14 item 5)")
struct ServeRunDrainTests {
    /// A real-time speech pipeline into the store, a WebVTT file and an m4a.
    static func config(session: String) -> String {
        """
        {
          "version": 1,
          "session": { "id": "\(session)", "autoStartTranscription": true, "captions": true, "participants": ["alice"] },
          "nodes": {
            "src":   { "type": "file-source", "path": "speech.wav", "realtime": true },
            "rs":    { "type": "resampler", "sampleRate": 16000, "channels": 1 },
            "vad":   { "type": "vad" },
            "asr":   { "type": "recognizer", "engine": "pocketsphinx" },
            "store": { "type": "transcript-store", "path": "store/transcripts.sqlite" },
            "vtt":   { "type": "caption-sink", "format": "webvtt", "path": "out/captions.vtt" },
            "rec":   { "type": "aac-sink", "path": "out/recording.m4a" }
          },
          "links": ["src -> rs -> vad -> asr -> store", "asr -> vtt", "src -> rec"]
        }
        """
    }

    /// The stored utterances of `session`'s transcripts, and the end time of each of its session rows.
    static func stored(_ session: String, in path: String) throws -> (utterances: [String], endTimes: [Int64]) {
        let store = try SQLiteTranscriptStore(path: path, create: false)
        defer { store.close() }
        var utterances: [String] = []
        for row in try store.transcripts(sessionID: session, after: nil, limit: 100) {
            guard let tid = row[StoreColumn.tid]?.description else { continue }
            utterances += try store.transcript(tid: tid)?.utterances.map(\.text) ?? []
        }
        let endTimes = try store.sessions(after: nil, limit: 100, transcribedOnly: false)
            .filter { $0[StoreColumn.sessionID]?.description == session }
            .map { row -> Int64 in if case .integer(let time)? = row[StoreColumn.endTime] { time } else { 0 } }
        return (utterances, endTimes)
    }

    /// The segment of a partial caption whose final has not been shown, if any.
    static func openSegment(_ events: [ServeSSEEvent]) -> Int? {
        var partial: Int?
        for case let object? in events.map(\.object) where object["segment"] is Int {
            let segment = object["segment"] as? Int
            if object["type"] as? String == "final" { partial = partial == segment ? nil : partial }
            if object["type"] as? String == "partial" { partial = segment }
        }
        return partial
    }

    @Test("SIGINT or SIGTERM mid-utterance: a playable m4a, the open utterance's final shown, stored and in the WebVTT, the session's end time, exit 0",
          arguments: [SIGINT, SIGTERM])
    func signalFinalizesTheRun(_ signalNumber: Int32) async throws {
        let dir = try TemporaryFolder()
        // The whole bundled call (24 s of speech), 16 kHz mono.
        let made = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                         ["sox", BatchFixtures.callFLAC, "-r", "16000", "-c", "1", "speech.wav"], in: dir)
        #expect(made.status == 0, "\(made)")
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try dir.write("live.json", Self.config(session: "drained"))
        let server = try await ServeProcess.start(fixture.serveArguments + ["--run", "live.json"], in: dir)
        let exit: ServeExit
        let events: [ServeSSEEvent]
        let open: Int?
        do {
            // Mid-utterance: a first final shown, and a later utterance's partial with no final yet.
            let stream = try await ServeEventStream(port: server.port, path: "/v1/sessions/drained/captions",
                                                    token: fixture.aliceToken)
            defer { stream.disconnect() }
            // The events are read again after the wait, and the open utterance's final may have come in between:
            // then wait for the next utterance's partial.
            var openAtSignal: Int?
            for _ in 0..<5 where openAtSignal == nil {
                let speaking = await stream.waitForEvents(timeout: 60) { events in
                    events.contains { $0.object?["type"] as? String == "final" } && Self.openSegment(events) != nil
                }
                try #require(speaking, "no utterance in progress\n\(stream.current?.reply.text ?? "")")
                openAtSignal = Self.openSegment(stream.events)
            }
            open = openAtSignal
            try #require(open != nil, "no utterance stayed open long enough to be signalled mid-way: \(stream.events)")
            if signalNumber == SIGINT { server.interrupt() } else { server.terminate() }
            let ended = await stream.waitForEnd()
            events = stream.events
            #expect(ended && events.last?.event == "end", "viewers get end: \(events)")
            exit = try await server.waitForExit()
        } catch {
            _ = try? await server.stop()
            throw error
        }
        #expect(exit.isClean, "serve exits 0 once its pipelines are finalized: \(exit)")

        // The utterance open at the signal got its final before `end`.
        let finals = events.compactMap(\.object).filter { $0["type"] as? String == "final" }
        #expect(finals.contains { $0["segment"] as? Int == open }, "the open segment \(String(describing: open)) got its final: \(events)")
        let shown = finals.compactMap { $0["text"] as? String }.filter { !$0.allSatisfy(\.isWhitespace) }
        let stored = try Self.stored("drained", in: fixture.storePath)
        #expect(Array(stored.utterances.suffix(shown.count)) == shown, "the finals shown are stored: \(stored.utterances) \(shown)")
        let vtt = try dir.read("out/captions.vtt")
        let cues = vtt.split(separator: "\n").filter { $0.contains(" --> ") }
        #expect(vtt.hasPrefix("WEBVTT") && !cues.isEmpty, "the WebVTT has cues:\n\(vtt)")
        if let last = shown.last?.split(separator: " ").last {
            #expect(vtt.contains(last), "the last final is a cue: \"\(last)\" in\n\(vtt)")
        }
        #expect(stored.endTimes.count == 1 && stored.endTimes.allSatisfy { $0 > 0 },
                "the stored session has its end time: \(stored.endTimes)")
        let probe = try await AACInterruptTests.probe("out/recording.m4a", in: dir)
        #expect((probe?.duration ?? 0) > 0, "ffprobe reads the m4a (it has its moov atom): \(String(describing: probe))")
    }
}
