/// README's third command, `./scripts/demo-call.sh`, run for real (without its install and build steps, with the
/// binary under test, 4x faster than real time, and an empty models folder so the recognizer's `auto` takes
/// pocketsphinx: whisper at 4x on two busy cores took up to 2 minutes): both speakers' captions are shown with
/// their names, and it leaves nothing behind (its temporary folder is removed, its server stopped).
import AudioGraphTestKit
import Foundation
import Testing

@Suite("scripts/demo-call.sh: a call of two bundled recordings, captions with names")
struct DemoCallScriptTests {
    @Test func showsBothSpeakersCaptionsAndCleansUp() async throws {
        let dir = try TemporaryFolder()
        let temporary = try TemporaryFolder()
        let models = try TemporaryFolder()
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_BIN"] = try Harness.binary().path
        environment["DEMO_RATE"] = "4"
        environment["TMPDIR"] = temporary.path
        environment["AUDIOGRAPH_MODELS_DIR"] = models.path
        let script = JoinCommandTests.root.appendingPathComponent("scripts/demo-call.sh").path
        let started = Date()
        let result = try await Harness.run(URL(fileURLWithPath: "/bin/bash"), [script], in: dir, environment: environment)
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 0, "\(result)")
        for name in ["alice", "bob"] {
            let words = result.stdoutLines.filter { $0.hasPrefix("\(name): ") }.flatMap { $0.split(separator: " ").dropFirst() }
            #expect(words.count >= 3, "\(name)'s captions, with words: \(result)")
        }
        #expect(result.stdout.contains("<v alice>") && result.stdout.contains("<v bob>"), "\(result)")
        #expect(result.stdout.contains("] alice: "), "the stored transcript names the speakers: \(result)")
        let left = try FileManager.default.contentsOfDirectory(atPath: temporary.path)
        #expect(left.isEmpty, "demo-call.sh left \(left) in TMPDIR")
        print("demo-call.sh at 4x: \(String(format: "%.1f", seconds)) s")
    }
}
