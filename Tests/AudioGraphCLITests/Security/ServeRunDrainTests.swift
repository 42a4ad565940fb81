/// Issue 14, item 5: `serve --run CONFIG` lost its outputs on SIGINT/SIGTERM: it exited 0 at once, leaving an
/// m4a without its moov atom, a WebVTT with only its header and a stored session without an end time. Under
/// `serve` a run now drains and finalizes as `audiograph run` does on Ctrl-C before the server answers `end` to
/// viewers and exits (0, as documented for serve).
import AudioGraph
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

    @Test("SIGINT or SIGTERM mid-run: a playable m4a, every final in the WebVTT and the store, the session's end time, exit 0",
          arguments: [SIGINT, SIGTERM])
    func signalFinalizesTheRun(_ signalNumber: Int32) async throws {
        let dir = try TempDirectory()
        try await ServeSpeech.make(in: dir)
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try dir.write("live.json", Self.config(session: "drained"))
        let server = try await ServeProcess.start(fixture.serveArguments + ["--run", "live.json"], in: dir)
        let exit: ServeExit
        do {
            // Under way: a first final is stored (the speech runs for longer than that).
            let captioned = try await Harness.waitUntil {
                !((try? Self.stored("drained", in: fixture.storePath).utterances) ?? []).isEmpty
            }
            #expect(captioned, "no final was stored")
            if signalNumber == SIGINT { server.interrupt() } else { server.terminate() }
            exit = try await server.waitForExit()
        } catch {
            _ = try? await server.stop()
            throw error
        }
        #expect(exit.isClean, "serve exits 0 once its pipelines are finalized: \(exit)")

        let probe = try await AACInterruptTests.probe("out/recording.m4a", in: dir)
        #expect((probe?.duration ?? 0) > 0, "ffprobe reads the m4a (it has its moov atom): \(String(describing: probe))")
        let vtt = try dir.read("out/captions.vtt")
        let cues = vtt.split(separator: "\n").filter { $0.contains(" --> ") }
        let stored = try Self.stored("drained", in: fixture.storePath)
        #expect(vtt.hasPrefix("WEBVTT") && !cues.isEmpty, "the WebVTT has cues:\n\(vtt)")
        #expect(!stored.utterances.isEmpty)
        for text in stored.utterances {
            #expect(vtt.contains(text.split(separator: " ").first.map(String.init) ?? text),
                    "every stored final is a cue too: \"\(text)\" in\n\(vtt)")
        }
        #expect(stored.endTimes.count == 1 && stored.endTimes.allSatisfy { $0 > 0 },
                "the stored session has its end time: \(stored.endTimes)")
    }
}
