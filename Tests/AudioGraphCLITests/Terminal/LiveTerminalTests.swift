import AudioGraphTestKit
import Foundation
import Testing

/// Issue 18, "Terminal output": live captions, the status line and messages share one terminal cleanly.
/// `audiograph run` gets a real terminal (a pseudo-terminal, 200 × 30) and the test reads the screen it
/// shows (`ScreenModel`): a message during a partial is printed above it on a row of its own and the partial is drawn again
/// under it; the progress/level line stays on the bottom row while captions scroll above it.
@Suite("audiograph run: live captions, status line and messages on one terminal")
struct LiveTerminalTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("AudioGraphSpeechTests/Fixtures")

    /// What a row of the screen is.
    enum Row: Equatable {
        case message, final, status, partial
    }

    static func kind(_ row: String) -> Row {
        if row.hasPrefix("audiograph:") { return .message }
        if row.hasPrefix("src [") { return .status }
        if row.range(of: #"^\[\d\d:\d\d\.\d\d → "#, options: .regularExpression) != nil { return .final }
        return .partial
    }

    /// The rows after the key help line (one row: the terminal is wide), top to bottom.
    static func rows(_ screen: [String]) -> [Row] {
        screen.drop { !$0.hasPrefix("audiograph: keys:") }.dropFirst().filter { !$0.isEmpty }.map(kind)
    }

    /// Nothing glued, nothing stale: "audiograph:" only at the start of a row, the status line only as the
    /// bottom row, and a partial only right above it (or as the bottom row).
    static func isClean(_ screen: [String]) -> Bool {
        for row in screen where row.contains("audiograph:") && !row.hasPrefix("audiograph:") { return false }
        let kinds = rows(screen)
        if let status = kinds.firstIndex(of: .status), status != kinds.count - 1 { return false }
        let partials = kinds.indices.filter { kinds[$0] == .partial }
        guard partials.count <= 1 else { return false }
        if let partial = partials.first {
            return partial == kinds.count - 1 || (partial == kinds.count - 2 && kinds.last == .status)
        }
        return true
    }

    /// A run of live captions over `clips` copies of the fixture, transcription and captions on, on a pseudo-terminal.
    func liveRun(clips: Int = 5) async throws -> (TerminalRun, TemporaryFolder) {
        let dir = try TemporaryFolder()
        let clip = Self.fixtures.appendingPathComponent("goforward.wav").path
        let sox = try await Harness.run(URL(fileURLWithPath: "/usr/bin/sox"), Array(repeating: clip, count: clips) + ["speech.wav"], in: dir)
        try #require(sox.status == 0, "\(sox)")
        _ = try dir.write("live.json", """
            {"version": 1, "session": {"id": "live", "autoStartTranscription": true, "captions": true},
             "nodes": {"src": {"type": "file-source", "path": "speech.wav", "realtime": true},
                       "meter": {"type": "level-meter"},
                       "vad": {"type": "vad"}, "asr": {"type": "recognizer", "engine": "pocketsphinx"},
                       "cc": {"type": "caption-sink"}},
             "links": ["src -> meter -> vad -> asr -> cc"]}
            """)
        return (try TerminalRun(["run", "live.json"], in: dir), dir)
    }

    /// Stops the run with q and checks it ended with 0 and left the terminal clean: the summary last, no
    /// partial or status line behind, no stray control sequence.
    func quit(_ run: TerminalRun) async throws {
        run.type("q")
        let exit = try await run.exited()
        let screen = run.screen()
        #expect(exit.status == 0 && !exit.timedOut, "\(exit)\n\(screen.joined(separator: "\n"))")
        #expect(screen.last?.hasPrefix("audiograph: done:") == true, "\(screen.joined(separator: "\n"))")
        #expect(!Self.rows(screen).contains(.partial) && !Self.rows(screen).contains(.status), "\(screen.joined(separator: "\n"))")
        #expect(run.unknownSequences.isEmpty, "\(run.unknownSequences)")
    }

    @Test func aMessageDuringAPartialGoesAboveItAndThePartialIsDrawnAgain() async throws {
        let (run, dir) = try await liveRun()
        defer { _ = dir }
        let partial = try await run.waitFor { Self.rows($0).suffix(2) == [.partial, .status] }
        #expect(partial.held, "no partial above the status line:\n\(partial.screen.joined(separator: "\n"))")
        // t is hidden by default: the answer is a message, and captions go on.
        run.type("t")
        let answered = try await run.waitFor { $0.contains { $0.contains("the transcription control is hidden") } }
        #expect(answered.held && Self.isClean(answered.screen), "\(answered.screen.joined(separator: "\n"))")
        let redrawn = try await run.waitFor { screen in
            let kinds = Self.rows(screen)
            return kinds.suffix(3) == [.message, .partial, .status] || kinds.suffix(2) == [.partial, .status]
                && kinds.contains(.message)
        }
        #expect(redrawn.held && Self.isClean(redrawn.screen), "\(redrawn.screen.joined(separator: "\n"))")
        try await quit(run)
    }

    @Test func theProgressAndLevelLineStaysUnderLiveCaptions() async throws {
        let (run, dir) = try await liveRun()
        defer { _ = dir }
        let shown = try await run.waitFor { screen in
            Self.rows(screen).contains(.final) && screen.last?.hasPrefix("src [") == true && screen.last?.contains("level [") == true
        }
        #expect(shown.held && Self.isClean(shown.screen), "\(shown.screen.joined(separator: "\n"))")
        #expect(shown.screen.last?.contains("% 00:") == true, "\(shown.screen.joined(separator: "\n"))")
        try await quit(run)
    }
}
