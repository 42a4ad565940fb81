import AudioGraphTestKit
import Foundation
import Testing

/// Issue 18, item 2 (no silent empty output): `audiograph run` warns once, before audio flows, when a
/// recognizer, caption sink or store can produce nothing with the session as configured, naming the nodes and
/// the fix; an SRT left without a cue gets a note saying why. No warning when the captions will appear.
@Suite("audiograph run: silent outputs")
struct SilentOutputWarningTests {
    static func pipeline(session: String, sinks: String, links: String) -> String {
        """
        {"version": 1, "session": {\(session)},
         "nodes": {"src": {"type": "file-source", "path": "call0.wav"}, "vad": {"type": "vad"},
                   "asr": {"type": "recognizer", "engine": "pocketsphinx"}, \(sinks)},
         "links": ["src -> vad -> asr", \(links)]}
        """
    }

    static func warnings(_ stderr: String) -> [String] {
        stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("audiograph: warning: ") }
    }

    @Test("transcription off: one warning naming asr and srt with the fix, and a note that the SRT has no cue")
    func transcriptionOff() async throws {
        let dir = try TemporaryFolder()
        _ = try await BatchFixtures.makeCalls(1, in: dir)
        try dir.write("p.json", Self.pipeline(session: "", sinks: #""srt": {"type": "caption-sink", "format": "srt", "path": "c.srt"}"#,
                                              links: #""asr -> srt""#))
        let result = try await Harness.audiograph(["run", "p.json"], in: dir)
        #expect(result.status == 0, "\(result)")
        let warnings = Self.warnings(result.stderr)
        #expect(warnings.count == 1, "\(result)")
        let warning = warnings.first ?? ""
        #expect(warning.contains("transcription is off") && warning.contains("nodes asr, srt"), "\(warning)")
        #expect(warning.contains("--set session.autoStartTranscription=true") && warning.contains("set session.hideTranscriptionButton to false to start it with t")
            && warning.contains("--control"), "\(warning)")
        #expect(result.stderr.contains("audiograph: note: \(dir.path("c.srt")) has no cue: transcription was off"), "\(result)")
        // Before audio flows: ahead of the summary line.
        let lines = result.stderrLines
        let warningLine = lines.firstIndex { $0.hasPrefix("audiograph: warning: ") } ?? .max
        let doneLine = lines.firstIndex { $0.hasPrefix("audiograph: done:") } ?? -1
        #expect(warningLine < doneLine, "\(result)")
    }

    @Test("captions off with a live sink: the warning names it and --set session.captions=true")
    func captionsOff() async throws {
        let dir = try TemporaryFolder()
        _ = try await BatchFixtures.makeCalls(1, in: dir)
        try dir.write("p.json", Self.pipeline(session: #""autoStartTranscription": true"#,
                                              sinks: #""live": {"type": "caption-sink", "format": "live"}"#,
                                              links: #""asr -> live""#))
        let result = try await Harness.audiograph(["run", "p.json"], in: dir)
        #expect(result.status == 0, "\(result)")
        let warnings = Self.warnings(result.stderr)
        #expect(warnings.count == 1, "\(result)")
        #expect(warnings.first?.contains("captions are off") == true && warnings.first?.contains("node live") == true
            && warnings.first?.contains("--set session.captions=true") == true, "\(result)")
        #expect(warnings.first?.contains("transcription is off") == false, "\(result)")
    }

    @Test("captions that will appear: no warning, no note, and the captions are there")
    func captionsOn() async throws {
        let dir = try TemporaryFolder()
        _ = try await BatchFixtures.makeCalls(1, in: dir)
        try dir.write("p.json", Self.pipeline(session: #""autoStartTranscription": true, "captions": true"#,
                                              sinks: #""live": {"type": "caption-sink", "format": "live"}, "srt": {"type": "caption-sink", "format": "srt", "path": "c.srt"}"#,
                                              links: #""asr -> live", "asr -> srt""#))
        let result = try await Harness.audiograph(["run", "p.json"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(Self.warnings(result.stderr).isEmpty, "\(result)")
        #expect(!result.stderr.contains("has no cue"), "\(result)")
        #expect(!result.stdout.isEmpty, "\(result)")
        #expect(try dir.read("c.srt").contains(" --> "))
    }
}
