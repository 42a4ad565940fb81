import AudioGraphTestKit
import Foundation
import Testing

/// Issue 15, "`engine` default `auto`, with a note on stderr saying which engine runs": `audiograph run` prints the
/// choice once per recognizer node on stderr (never on `--events jsonl` stdout, not with `--quiet`, not when the
/// config names the engine). No whisper model is installed in the run's models folder, so auto picks pocketsphinx.
@Suite struct AutoEngineNoteTests {
    static func folder(engine: String? = nil) async throws -> TemporaryFolder {
        let directory = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: directory, sampleRate: 16000, channels: 1, seconds: 1)
        let pinned = engine.map { #", "engine": "\#($0)""# } ?? ""
        try directory.write("config.json", """
            {"version": 1,
             "nodes": {"src": {"type": "file-source", "path": "in.wav"},
                       "asr": {"type": "recognizer"\(pinned)}, "asr2": {"type": "recognizer"\(pinned)}},
             "links": ["src -> asr", "src -> asr2"]}
            """)
        try FileManager.default.createDirectory(atPath: directory.path("models"), withIntermediateDirectories: true)
        return directory
    }

    /// Runs with an empty models folder, so no whisper model is found.
    static func run(_ arguments: [String], in directory: TemporaryFolder) async throws -> CLIResult {
        try await Harness.audiograph(arguments, in: directory,
                                     shellPrelude: "export AUDIOGRAPH_MODELS_DIR='\(directory.path("models"))'")
    }

    @Test("auto: one note per recognizer on stderr; stdout holds only events")
    func notePerRecognizer() async throws {
        let directory = try await Self.folder()
        let result = try await Self.run(["run", "config.json", "--events", "jsonl"], in: directory)
        #expect(result.status == 0, "\(result)")
        for id in ["asr", "asr2"] {
            let notes = result.stderrLines.filter { $0.hasPrefix("audiograph: note: recognizer \(id): engine pocketsphinx (auto: ") }
            #expect(notes.count == 1, "\(result)")
            // It says which model was missing and how to install it.
            #expect(notes.first?.contains("no whisper model at \(directory.path("models"))/ggml-tiny.en.bin; "
                                          + "audiograph models install tiny.en") == true, "\(result)")
        }
        #expect(!result.stdout.contains("note"), "\(result)")
        #expect(result.stdoutLines.allSatisfy { parseJSONObject($0) != nil }, "\(result)")
    }

    @Test("no note with --quiet, nor when the config names the engine")
    func noNoteWhenPinnedOrQuiet() async throws {
        let quiet = try await Self.run(["run", "config.json", "--quiet"], in: try await Self.folder())
        #expect(quiet.status == 0 && !quiet.stderr.contains("engine pocketsphinx"), "\(quiet)")
        let pinned = try await Self.run(["run", "config.json"], in: try await Self.folder(engine: "pocketsphinx"))
        #expect(pinned.status == 0 && !pinned.stderr.contains("(auto:"), "\(pinned)")
    }

    @Test("another engine's parameter is refused at nodes.asr.PARAM; --set asr.engine=pocketsphinx switches back")
    func setOverridesTheEngine() async throws {
        let directory = try await Self.folder(engine: "no-such-engine")
        let unknown = try await Self.run(["validate", "config.json"], in: directory)
        expectError(unknown, exit: 65, at: "nodes.asr.engine")
        let switched = try await Self.run(["validate", "config.json", "--set", "asr.engine=pocketsphinx",
                                           "--set", "asr2.engine=pocketsphinx", "--set", "asr.maxActiveHMMs=3000"],
                                          in: directory)
        #expect(switched.status == 0, "\(switched)")
        let typo = try await Self.run(["validate", "config.json", "--set", "asr.engine=pocketsphinx",
                                       "--set", "asr2.engine=pocketsphinx", "--set", "asr.maxActiveHMM=3000"], in: directory)
        expectError(typo, exit: 65, at: "nodes.asr.maxActiveHMM")
        #expect(typo.stderr.contains("did you mean \"maxActiveHMMs\""), "\(typo)")
    }
}
