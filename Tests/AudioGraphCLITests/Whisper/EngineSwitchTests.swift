/// Issue 15, "Parameters": one session config runs with both engines. As written it runs whisper; the same file
/// with `--set asr.engine=pocketsphinx` (and nothing else changed) runs pocketsphinx, and both runs write their
/// finals the same way to the same kinds of outputs: the session's transcript store and the caption sink.
import AudioGraphTestKit
import Foundation
import Testing

@Suite struct EngineSwitchTests {
    static let clips = ["librivox_0870", "librivox_0880", "cards_005"]
    static let config = WhisperCLI.sessionConfig(recognizer: #"{ "type": "recognizer", "engine": "whisper" }"#)

    /// Runs the session config in a fresh folder with `extra` arguments; returns the caption texts after checking
    /// that the store holds one transcript of session "engines" with the same utterances.
    func run(_ extra: [String]) async throws -> (captions: [String], result: CLIResult) {
        let dir = try TemporaryFolder()
        try await WhisperCLI.makeSpeech(Self.clips, in: dir)
        try dir.write("session.json", Self.config)
        let result = try await Harness.audiograph(["run", "session.json", "--quiet"] + extra, in: dir)
        try #require(result.status == 0, "\(result)")
        let captions = try WhisperCLI.captionTexts(dir.path("out/captions.json"))
        #expect(!captions.isEmpty, "no captions\n\(result)")

        let list = try await Harness.audiograph(["transcripts", "list", "--session", "engines", "--store",
                                                 "out/store.sqlite", "--json"], in: dir)
        try #require(list.status == 0, "\(list)")
        let records = try #require(try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]])
        try #require(records.count == 1, "one transcript for the session: \(list.stdout)")
        let tid = try #require(records[0]["tid"] as? String)
        let show = try await Harness.audiograph(["transcripts", "show", tid, "--store", "out/store.sqlite", "--json"],
                                                in: dir)
        try #require(show.status == 0, "\(show)")
        let record = try #require(try JSONSerialization.jsonObject(with: Data(show.stdout.utf8)) as? [String: Any])
        let stored = try #require(record["utterances"] as? [[String: Any]]).compactMap { $0["text"] as? String }
        #expect(stored == captions, "the store and the caption sink got different finals")
        return (captions, result)
    }

    @Test func theSameSessionConfigRunsWithEitherEngine() async throws {
        _ = try WhisperCLI.requireModel()
        let whisper = try await run([])
        let pocketsphinx = try await run(["--set", "asr.engine=pocketsphinx"])

        let whisperScore = try WhisperCLI.wordErrors(of: whisper.captions, clips: Self.clips)
        let sphinxScore = try WhisperCLI.wordErrors(of: pocketsphinx.captions, clips: Self.clips)
        // Measured one clip at a time (benchmarks/whisper.sh): whisper 3 errors on these clips, pocketsphinx 10;
        // so equal transcripts would mean the switch did nothing.
        #expect(whisperScore.errors <= 4, "whisper: \(whisperScore) \(whisper.captions)")
        #expect(pocketsphinx.captions != whisper.captions, "both runs gave the same words: did the engine switch?")
        #expect(sphinxScore.errors > whisperScore.errors,
                "pocketsphinx \(sphinxScore) vs whisper \(whisperScore): \(pocketsphinx.captions)")
    }
}
