import AudioGraphTestKit
import Foundation
import Testing

/// Issue 18, item 1: `audiograph transcribe FILE...` on the real binary: one file, many files, --out-dir,
/// existing outputs (refused without --force, nothing written), --json, and --print-config, whose config
/// `audiograph run` runs to the same captions.
@Suite("audiograph transcribe")
struct TranscribeCommandTests {
    /// pocketsphinx: quick, and there on every machine the tests run on.
    static let engine = ["--engine", "pocketsphinx"]

    @Test("one file: NAME.srt next to it, with cues, and a summary line")
    func oneFile() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(1, in: dir)
        let result = try await Harness.audiograph(["transcribe", names[0]] + Self.engine, in: dir)
        #expect(result.status == 0, "\(result)")
        let srt = try dir.read("call0.srt")
        #expect(srt.hasPrefix("1\n00:00:"), "\(srt)")
        #expect(!dir.exists("call0.vtt"))
        #expect(result.stderr.contains("call0.wav → \(dir.path("call0.srt"))"), "\(result)")
        #expect(result.stderr.contains("audiograph: transcribed 1 of 1 file: "), "\(result)")
    }

    @Test("many files with -o srt,vtt,txt,json --jobs 2 --json: every output of every file")
    func manyFiles() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(3, in: dir)
        let result = try await Harness.audiograph(["transcribe"] + names + ["-o", "srt,vtt,txt,json", "--jobs", "2", "--json"]
                                                  + Self.engine, in: dir)
        #expect(result.status == 0, "\(result)")
        let summary = try BatchFixtures.json(result.stdout)
        #expect(summary["files"] as? Int == 3 && summary["done"] as? Int == 3, "\(result)")
        let results = summary["results"] as? [[String: Any]] ?? []
        #expect(results.count == 3, "\(result)")
        for name in names {
            let stem = String(name.dropLast(4))
            #expect(try dir.read("\(stem).vtt").hasPrefix("WEBVTT\n\n00:"), "\(stem)")
            #expect(try dir.read("\(stem).srt").contains(" --> "), "\(stem)")
            #expect(try !dir.read("\(stem).txt").isEmpty, "\(stem)")
            #expect(try dir.read("\(stem).json").contains("\"utterances\""), "\(stem)")
        }
    }

    @Test("--out-dir: the outputs go there (created), none next to the input")
    func outDir() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(2, in: dir)
        let result = try await Harness.audiograph(["transcribe"] + names + ["--out-dir", "subs/en", "-o", "vtt"] + Self.engine,
                                                  in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(dir.exists("subs/en/call0.vtt") && dir.exists("subs/en/call1.vtt"), "\(result)")
        #expect(!dir.exists("call0.vtt") && !dir.exists("call0.srt"))
    }

    @Test("an existing output: exit 73 naming it, nothing written; --force overwrites")
    func existingOutput() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(2, in: dir)
        try dir.write("call1.srt", "keep me\n")
        let refused = try await Harness.audiograph(["transcribe"] + names + Self.engine, in: dir)
        expectError(refused, exit: 73, at: dir.path("call1.srt"))
        #expect(refused.stderr.contains("--force"), "\(refused)")
        #expect(try dir.read("call1.srt") == "keep me\n")
        #expect(!dir.exists("call0.srt"), "a file was written before the refusal")
        let forced = try await Harness.audiograph(["transcribe"] + names + ["--force"] + Self.engine, in: dir)
        #expect(forced.status == 0, "\(forced)")
        #expect(try dir.read("call1.srt").contains(" --> "))
    }

    @Test("a missing input is exit 66 naming it; an unknown format exit 64")
    func badArguments() async throws {
        let dir = try TemporaryFolder()
        expectError(try await Harness.audiograph(["transcribe", "gone.wav"], in: dir), exit: 66, at: "gone.wav")
        expectError(try await Harness.audiograph(["transcribe", "gone.wav", "-o", "srtt"], in: dir), exit: 64, at: "-o")
        expectError(try await Harness.audiograph(["transcribe"], in: dir), exit: 64, at: nil)
    }

    @Test("--print-config prints the pipeline; `audiograph run` of it writes the same captions")
    func printConfig() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(1, in: dir)
        let printed = try await Harness.audiograph(["transcribe", names[0], "-o", "srt,vtt", "--print-config"] + Self.engine,
                                                   in: dir)
        #expect(printed.status == 0, "\(printed)")
        #expect(printed.stdout.contains("\"autoStartTranscription\": true"), "\(printed)")
        #expect(printed.stdout.contains("\"path\": \"{dir}/{stem}.srt\""), "\(printed)")
        #expect(!dir.exists("call0.srt"), "--print-config ran the pipeline")
        try dir.write("pipeline.json", printed.stdout)

        let transcribed = try await Harness.audiograph(["transcribe", names[0], "-o", "srt,vtt"] + Self.engine, in: dir)
        #expect(transcribed.status == 0, "\(transcribed)")
        let srt = try dir.read("call0.srt")
        let vtt = try dir.read("call0.vtt")
        try FileManager.default.removeItem(atPath: dir.path("call0.srt"))
        try FileManager.default.removeItem(atPath: dir.path("call0.vtt"))
        let ran = try await Harness.audiograph(["run", "pipeline.json"], in: dir)
        #expect(ran.status == 0, "\(ran)")
        #expect(try dir.read("call0.srt") == srt)
        #expect(try dir.read("call0.vtt") == vtt)
        #expect(srt.contains(" --> "), "\(srt)")
    }
}

/// Issue 18, item 1: a bad --language is a usage error at --language with a did-you-mean; one file that
/// fails is reported once, with its own exit code.
@Suite("audiograph transcribe: bad input")
struct TranscribeLanguageTests {
    @Test("one file that is not audio: its error once, with its own exit code (not 0, not 75)")
    func notAudio() async throws {
        let dir = try TemporaryFolder()
        try dir.write("notes.wav", "this is text, not audio\n")
        let result = try await Harness.audiograph(["transcribe", "notes.wav", "--engine", "pocketsphinx"], in: dir)
        #expect(result.status != 0 && result.status != 75, "\(result)")
        let errors = result.stderrLines.filter { $0.contains("notes.wav") && !$0.contains("note:") }
        #expect(errors.count == 1, "\(result)")
    }

    @Test("--language en-UK: exit 64 at --language, suggesting en-GB")
    func badLanguage() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("a.wav", in: dir)
        let result = try await Harness.audiograph(["transcribe", "a.wav", "--language", "en-UK"], in: dir)
        expectError(result, exit: 64, at: "--language")
        #expect(result.stderr.contains("did you mean"), "\(result)")
        #expect(!dir.exists("a.srt"))
    }
}
