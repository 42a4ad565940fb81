import AudioGraphTestKit
import Foundation
import Testing

/// Issue 18, item 5: `-V` and `version`, `validate --dot FILE` without a run, and `nodes` fitted to the width
/// with each type's origin marked, and `completion bash|zsh|fish` made from the command table.
@Suite("audiograph -V, version, validate --dot, nodes")
struct SmallCommandsTests {
    @Test("-V, version and --version print the same line")
    func version() async throws {
        let dir = try TemporaryFolder()
        let long = try await Harness.audiograph(["--version"], in: dir)
        #expect(long.status == 0 && long.stdout.hasPrefix("audiograph "), "\(long)")
        for spelling in ["-V", "version"] {
            let result = try await Harness.audiograph([spelling], in: dir)
            #expect(result.status == 0 && result.stdout == long.stdout, "\(result)")
        }
    }

    @Test("validate --dot writes the graph without running it")
    func validateDot() async throws {
        let dir = try TemporaryFolder()
        try await Harness.makeWAV("in.wav", in: dir)
        let result = try await Harness.audiograph(["validate", "-e", "file-source path=in.wav ! wav-sink path=out.wav",
                                                   "--dot", "g.dot"], in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(try dir.read("g.dot").contains("digraph"), "\(result)")
        #expect(!dir.exists("out.wav"), "validate ran the pipeline")
    }

    @Test("nodes: each line fits COLUMNS and marks where the type comes from")
    func nodesWidth() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"), ["COLUMNS=60", try Harness.binary().path, "nodes"],
                                           in: dir)
        #expect(result.status == 0, "\(result)")
        #expect(!result.stdoutLines.isEmpty)
        for line in result.stdoutLines {
            #expect(line.count <= 60, "\(line)")
            #expect(line.contains(" built-in ") || line.contains(" plugin ") || line.contains(" app "), "\(line)")
        }
        #expect(result.stdoutLines.contains { $0.hasPrefix("resampler ") && $0.contains(" built-in ") }, "\(result)")
    }

    @Test("completion bash completes commands and each command's declared options")
    func bashCompletion() async throws {
        let dir = try TemporaryFolder()
        let script = try await Harness.audiograph(["completion", "bash"], in: dir)
        #expect(script.status == 0, "\(script)")
        try dir.write("c.bash", script.stdout)
        func complete(_ words: String, at index: Int) async throws -> String {
            let result = try await Harness.run(URL(fileURLWithPath: "/bin/bash"), ["-c",
                "source c.bash; COMP_WORDS=(\(words)); COMP_CWORD=\(index); _audiograph; echo \"${COMPREPLY[*]}\""], in: dir)
            #expect(result.status == 0, "\(result)")
            return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try await complete("audiograph tran", at: 1) == "transcribe transcripts")
        let options = try await complete("audiograph transcribe --o", at: 2)
        #expect(options == "--out-dir", "\(options)")
        let runOptions = try await complete("audiograph run --", at: 2).split(separator: " ")
        #expect(runOptions.contains("--control") && runOptions.contains("--events") && runOptions.contains("--help"), "\(runOptions)")
        for shell in ["zsh", "fish"] {
            let other = try await Harness.audiograph(["completion", shell], in: dir)
            #expect(other.status == 0 && other.stdout.contains("transcribe") && other.stdout.contains("out-dir"), "\(other)")
        }
        expectError(try await Harness.audiograph(["completion", "tcsh"], in: dir), exit: 64, at: "tcsh")
    }

    /// The options a command declares (what it parses, what the completion offers) and its --help agree: help
    /// names every declared option, its OPTIONS section has a row for each and no other, and every option its
    /// usage line shows is declared.
    @Test("every command's declared options are the ones its --help shows")
    func declaredOptionsMatchHelp() async throws {
        let dir = try TemporaryFolder()
        let overview = try await Harness.audiograph(["--help"], in: dir)
        let commands = overview.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            .drop { $0 != "COMMANDS:" }.dropFirst().prefix { !$0.isEmpty }
            .compactMap { $0.split(separator: " ").first.map(String.init) }
        #expect(commands.count >= 17 && commands.allSatisfy { !$0.hasPrefix("-") }, "\(overview)")
        let script = try await Harness.audiograph(["completion", "bash"], in: dir)
        try dir.write("c.bash", script.stdout)
        for command in commands {
            let completed = try await Harness.run(URL(fileURLWithPath: "/bin/bash"), ["-c",
                "source c.bash; COMP_WORDS=(audiograph \(command) -); COMP_CWORD=2; _audiograph; echo \"${COMPREPLY[*]}\""], in: dir)
            let declared = Set(completed.stdout.split(whereSeparator: \.isWhitespace).map(String.init)).subtracting(["--help"])
            let help = try await Harness.audiograph([command, "--help"], in: dir).stdout
            let words = Set(help.split(whereSeparator: { $0.isWhitespace || "[]|=,()`'\"".contains($0) }).map(String.init))
            for option in declared.sorted() {
                #expect(words.contains(option), "audiograph \(command) parses \(option), but its --help does not say so")
            }
            // The OPTIONS section is printed from the same table: a row per declared option, none other, in
            // lines that fit the help's width.
            let section = help.split(separator: "\n", omittingEmptySubsequences: false)
                .drop { $0 != "OPTIONS:" }.dropFirst().prefix { !$0.isEmpty }
            let rows = section.filter { $0.hasPrefix("  -") }.compactMap { $0.split(separator: " ").first.map(String.init) }
            #expect(Set(rows) == declared && rows.count == declared.count,
                    "audiograph \(command)'s OPTIONS rows \(rows) are not its declared options \(declared.sorted())")
            #expect(section.allSatisfy { $0.count <= 108 }, "audiograph \(command)'s OPTIONS lines are too long")
            let usage = help.split(separator: "\n").first { $0.hasPrefix("USAGE:") }.map(String.init) ?? ""
            let shown = usage.split(whereSeparator: { $0.isWhitespace || "[]|=".contains($0) }).map(String.init)
                .filter { ($0.hasPrefix("--") && $0.count > 2) || ($0.count == 2 && $0.hasPrefix("-") && $0.last!.isLetter) }
            for option in shown where option != "--help" {
                #expect(declared.contains(option), "audiograph \(command)'s usage shows \(option), which it does not declare")
            }
        }
    }
}
