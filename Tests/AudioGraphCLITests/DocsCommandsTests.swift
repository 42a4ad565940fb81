// Every command in README.md and docs/*.md is run by a test.
//
// What counts as a command (the rule this file enforces):
// - Only fenced blocks whose info string is `sh`, `bash` or `console` hold commands. Other blocks (no language,
//   `json`, `swift`, `sql`, ...) are never read as commands, so show output or syntax in those.
// - In ```sh and ```bash blocks every non-blank line is a command, except comment lines (first non-blank
//   character `#`). A trailing ` # comment` is dropped; a line ending in `\` continues on the next.
// - In ```console blocks only lines starting with `$ ` are commands (the `$ ` is dropped); every other line is
//   output and is never run.
// - Commands are compared with runs of blanks collapsed to one space.
//
// Every command found must have an entry in `DocsCommands.checks` (it is run, with its expectations) or in
// `DocsCommands.allowList` (with the reason it is not run here; `allowListPrefixes` for the `swift package …`
// plugin commands). A command added to the docs without either fails `everyCommandIsCovered`; an entry whose
// command is no longer documented fails `noStaleEntries`.
//
// How a command runs: with `/bin/sh -c` in a fresh temp folder laid out like the repository (a copy of
// `examples/`, `talk.wav` made with sox from the bundled call, and every file the docs say to save, e.g.
// "Save this as `my-pipeline.json`" followed by a fenced block), `audiograph` on PATH resolved to the built
// binary, `USER` set. Listening addresses `127.0.0.1:8080` (in the command and in the copied configs) become
// `127.0.0.1:0`, so runs never fight over a port; a command that talks to a server (curl) gets the address of
// the server its check started. Commands that run until stopped (`audiograph serve`, `audiograph run` with a
// `serve` block) are started, their "audiograph: serving http://" line awaited on stderr, `GET /health` asked,
// then sent SIGINT.
import AudioGraphTestKit
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import AudioGraphWhisper
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// MARK: - What each documented command must do

/// What running one documented command must do.
struct DocCheck: Sendable {
    enum Outcome: Sendable {
        /// Runs to its end and exits with this status.
        case exits(Int32)
        /// Runs until stopped: prints "audiograph: serving http://…" on stderr, then exits with this status on
        /// SIGINT.
        case serves(exitOnInterrupt: Int32)
    }

    var outcome: Outcome
    /// Shell commands run first in the same folder, each expected to exit 0. A token one of them prints
    /// (`audiograph tokens create`: the last word of its last line) is exported as `$TOKEN`.
    var before: [String] = []
    /// A shell command started (and awaited until serving) before the command, stopped with SIGINT after it;
    /// `127.0.0.1:8080` in the command then means this server.
    var server: String?
    /// Text stdout must contain.
    var stdout: [String] = []
    /// Files (relative to the folder) that must exist afterwards.
    var files: [String] = []

    static func exits(_ status: Int32, before: [String] = [], server: String? = nil, stdout: [String] = [],
                      files: [String] = []) -> DocCheck {
        DocCheck(outcome: .exits(status), before: before, server: server, stdout: stdout, files: files)
    }

    static func serves(exitOnInterrupt status: Int32, before: [String] = []) -> DocCheck {
        DocCheck(outcome: .serves(exitOnInterrupt: status), before: before)
    }
}

enum DocsCommands {
    /// Documented commands that are run here, by their text (as documented, blanks collapsed).
    static let checks: [String: DocCheck] = [
        // README.md
        "audiograph transcribe examples/audio/call.flac -o srt,vtt --out-dir out/transcribe":
            .exits(0, files: ["out/transcribe/call.srt", "out/transcribe/call.vtt"]),
        // docs/getting-started.md: transcribe a file
        "audiograph transcribe talk.wav -o srt,vtt,txt": .exits(0, files: ["talk.srt", "talk.vtt", "talk.txt"]),
        "audiograph transcribe talk.wav --print-config": .exits(0, stdout: [#""autoStartTranscription": true"#]),
        // docs/config.md: inline pipelines
        "audiograph validate -e 'file-source path=talk.wav ! resampler sampleRate=16000 channels=1 ! wav-sink path=out/talk-16k.wav'":
            .exits(0, stdout: ["ok: the -e pipeline is valid"]),
        "audiograph validate -e 'file-source path=talk.wav ! vad ! recognizer name=asr engine=pocketsphinx ! caption-sink format=srt path=out/talk.srt asr. ! caption-sink format=webvtt path=out/talk.vtt' --print-config":
            .exits(0, stdout: [#""asr -> caption-sink-2""#]),
        "audiograph run examples/levels.json --events jsonl":
            .exits(0, stdout: [#""type":"level""#], files: ["out/levels/speech-16k.wav"]),

        // docs/getting-started.md: a first pipeline (my-pipeline.json as the doc gives it, talk.wav from sox)
        "audiograph validate my-pipeline.json":
            .exits(0, stdout: ["ok: my-pipeline.json is valid"]),
        "audiograph run my-pipeline.json":
            .exits(0, files: ["out/talk-16k.flac"]),
        "audiograph run my-pipeline.json --events jsonl":
            .exits(0, stdout: [#""type":"level""#], files: ["out/talk-16k.flac"]),
        "audiograph run my-pipeline.json --stats":
            .exits(0, files: ["out/talk-16k.flac"]),
        "audiograph run my-pipeline.json --set rs.sampleRate=8000 --set out.path=out/talk-8k.wav":
            .exits(0, files: ["out/talk-8k.wav"]),
        // docs/getting-started.md: transcripts over HTTP
        #"audiograph run my-pipeline.json --set rs.sampleRate=fast"#:
            .exits(65),
        #"audiograph tokens create --user "${USER:-$(id -un)}" --store out/live/transcripts.sqlite"#:
            .exits(0, stdout: ["agt_"], files: ["out/live/transcripts.sqlite"]),
        "audiograph run examples/live-server.json":
            .serves(exitOnInterrupt: 130),
        // docs/getting-started.md: join a call from the browser
        "audiograph tokens create --user alice --store out/call/transcripts.sqlite":
            .exits(0, stdout: ["token for alice: agt_"], files: ["out/call/transcripts.sqlite"]),
        "audiograph tokens create --user bob --store out/call/transcripts.sqlite":
            .exits(0, stdout: ["token for bob: agt_"], files: ["out/call/transcripts.sqlite"]),
        "audiograph serve --store out/call/transcripts.sqlite --listen 127.0.0.1:8080 --run examples/call.json":
            .serves(exitOnInterrupt: 0, before: ["audiograph tokens create --user alice --store out/call/transcripts.sqlite"]),

        // docs/scale.md: a batch on one machine (manifest.jsonl and pipeline.json as the doc gives them)
        "audiograph batch manifest.jsonl --pipeline pipeline.json --jobs 2":
            .exits(0, files: ["out/transcripts.sqlite"]),
        "audiograph calls --store out/transcripts.sqlite":
            .exits(0, before: ["audiograph batch manifest.jsonl --pipeline pipeline.json --jobs 2"],
                   stdout: ["call-1017", "librivox_0870_44k_stereo"]),

        // docs/plugins.md (the example plugins, built by scripts/build-plugins.sh)
        "audiograph plugins examples/plugins/gain.json":
            .exits(0, stdout: ["loaded", "gain 1.0.0", "node type  gain"]),
        "audiograph run examples/plugins/gain.json --events jsonl":
            .exits(0, stdout: [#""type":"clipped""#]),
        "audiograph run examples/plugins/keyword-spotter.json":
            .exits(0),
        // docs/latency.md
        "audiograph run examples/captions.json --stats":
            .exits(0, files: ["out/captions/call.srt"]),
        "AUDIOGRAPH_PLUGIN_PATH=.build/plugins/gain/release audiograph inspect gain":
            .exits(0, stdout: ["gain (filter)", "gainDb"]),
        #"AUDIOGRAPH_PLUGIN_PATH=.build/plugins/keyword-spotter/release audiograph run examples/captions.json --set asr.engine=keyword-spotter --set asr.keyphrase="go forward""#:
            .exits(0),
        "AUDIOGRAPH_PLUGIN_PATH=.build/plugins/gain/release:.build/plugins/keyword-spotter/release audiograph plugins":
            .exits(0, stdout: ["gain 1.0.0", "engine     keyword-spotter"]),

        // docs/http-api.md
        "audiograph tokens create --user alice --store out/transcripts.sqlite":
            .exits(0, stdout: ["token for alice: agt_"], files: ["out/transcripts.sqlite"]),
        "audiograph serve --store out/transcripts.sqlite --listen 127.0.0.1:8080":
            .serves(exitOnInterrupt: 0, before: ["audiograph tokens create --user alice --store out/transcripts.sqlite"]),
        "audiograph serve --store out/transcripts.sqlite --listen 127.0.0.1:8080 --max-connections-per-address 64 --header-timeout 5":
            .serves(exitOnInterrupt: 0, before: ["audiograph tokens create --user alice --store out/transcripts.sqlite"]),
        #"curl -H "Authorization: Bearer $TOKEN" "http://127.0.0.1:8080/v1/calls?hasTranscriptions=true&limit=10""#:
            .exits(0, before: ["audiograph tokens create --user alice --store out/transcripts.sqlite"],
                   server: "audiograph serve --store out/transcripts.sqlite --listen 127.0.0.1:8080",
                   stdout: [#""calls":["#, #""page":1"#]),
        // docs/getting-started.md, docs/speech.md ("Models"): the models folder is the workspace's own, holding
        // links to the installed models (see DocsWorkspace), so nothing is downloaded or written elsewhere.
        "audiograph models list":
            .exits(0, stdout: ["tiny.en", "ggml-tiny.en.bin", "base"]),
        "audiograph models install tiny.en":
            .exits(0, stdout: ["tiny.en", "ggml-tiny.en.bin"], files: [".models/ggml-tiny.en.bin", ".models/ggml-tiny.en.bin.sha256"]),
        "audiograph models install silero":
            .exits(0, stdout: ["silero", "ggml-silero.bin"], files: [".models/ggml-silero.bin", ".models/ggml-silero.bin.sha256"]),
        "audiograph models path tiny.en":
            .exits(0, stdout: [".models/ggml-tiny.en.bin"]),

        // docs/http-api.md: metrics (no token)
        "curl http://127.0.0.1:8080/metrics":
            .exits(0, before: ["audiograph tokens create --user alice --store out/transcripts.sqlite"],
                   server: "audiograph serve --store out/transcripts.sqlite --listen 127.0.0.1:8080",
                   stdout: ["# TYPE audiograph_live_sessions gauge", "audiograph_live_sessions 0"]),
    ]

    /// Documented commands that are not run here, each with the reason.
    static let allowList: [String: String] = [
        "./scripts/demo.sh":
            "installs Debian packages (apt-get), builds the package and plays the 24 s demo; run by hand, not "
            + "in CI (what it does with audiograph is the commands checked here, and ExamplesTests runs demo.json).",
        #"audiograph batch manifest.jsonl --pipeline pipeline.json --store "$URL" --enqueue-only"#:
            "the Slurm recipe's enqueue step, against the cluster's PostgreSQL ($URL); the batch tests "
            + "(Tests/AudioGraphCLITests/Batch) run --enqueue-only against a real store.",
        "scripts/build-plugins.sh":
            "builds the two example plugin packages (a nested swift build each); CI runs it before the tests, and "
            + "the plugin checks here and Tests/AudioGraphCLITests/Plugins use what it built.",
        "swift build -c release --package-path examples/plugins/gain --scratch-path .build/plugins/gain":
            "what scripts/build-plugins.sh runs for the gain plugin (CI runs the script).",
        "./scripts/demo-call.sh":
            "installs Debian packages (apt-get) and builds first; DemoCallScriptTests (Tests/AudioGraphCLITests/Join) "
            + "runs the script itself with the built binary (AUDIOGRAPH_BIN) at 4x (DEMO_RATE) and checks both "
            + "speakers' captions and that it leaves nothing behind.",
        "./scripts/test.sh":
            "is what CI runs (.ci/run runs scripts/test.sh); it runs this very test.",
        "swift build --package-path examples/embedding":
            "builds the example package; built and tested for CI by scripts/build-examples.sh.",
        "swift run --package-path examples/embedding embedding-demo":
            "runs the example package's demo; run for CI by scripts/build-examples.sh.",
        "swift test --package-path examples/embedding":
            "tests the example package; run for CI by scripts/build-examples.sh.",
        // docs/node-authoring.md
        "swift test --filter NoiseGateNodeTests":
            "runs in the reader's own package after `scaffold-node`; CommandPluginTests (Tests/AudioGraphTests) "
            + "scaffolds a node in a package of its own and runs its tests.",
        "swift run audiograph docs nodes > docs/nodes.md":
            "rewrites docs/nodes.md in the repository (a nested swift build); GeneratedDocsTests "
            + "(Tests/AudioGraphTests) fails when docs/nodes.md is not what it would write.",
    ]

    /// Documented commands that are not run here, by how they start, each with the reason.
    static let allowListPrefixes: [String: String] = [
        // docs/scale.md: the recipes for engines this machine does not run
        "docker ": "needs a Docker engine (none runs here: deploy/validate.sh checks the Dockerfile's packages and "
            + "the binary's libraries instead).",
        "kubectl ": "needs a Kubernetes cluster (deploy/validate.sh checks the manifests with kubernetes-validate).",
        "cd deploy/kubernetes": "the first line of the kubectl recipe (a cluster is needed).",
        "sbatch ": "needs Slurm (deploy/validate.sh checks the script with bash -n and shellcheck).",
        "install -D -m 600 /dev/null ~/.config/audiograph/worker.env": "creates the Slurm workers' env file in the "
            + "user's home (part of the Slurm recipe).",
        "benchmarks/": "a benchmark: plays audio at 1x or runs for minutes, and its numbers need an idle machine; "
            + "run by hand (benchmarks/README.md has the results). Its --smoke mode (tiny inputs, seconds) is run "
            + "by scripts/bench-smoke.sh, which CI runs. What it runs is `audiograph run` with --events jsonl / "
            + "--no-metrics, which StatsTests and MetricsTests cover.",
        // docs/fuzzing.md
        "scripts/fuzz.sh ":
            "a fuzz run (a sanitized build of its own in .build/fuzz, then minutes of libFuzzer); CI runs "
            + "`scripts/fuzz.sh --smoke` before the tests.",
        ".build/fuzz/debug/fuzz-":
            "replays an input with a fuzz target that scripts/fuzz.sh built (CI runs the script, which replays "
            + "every corpus input before fuzzing).",
        "swift package ":
            "a SwiftPM command (the plugins in Plugins/: validate-pipelines, scaffold-node): each needs a nested "
            + "swift build of audiograph, minutes on two cores; CommandPluginTests (Tests/AudioGraphTests) runs "
            + "them for real in packages of their own.",
    ]

    /// Why `command` is not run here, or nil when it must be.
    static func allowed(_ command: String) -> String? {
        allowList[command] ?? allowListPrefixes.first { command.hasPrefix($0.key) }?.value
    }

    /// The repository's root (this file is Tests/AudioGraphCLITests/DocsCommandsTests.swift).
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// README.md and docs/*.md, as paths relative to the root, sorted.
    static var markdownFiles: [String] {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
    }

    /// Every documented command, in file order.
    static var all: [DocCommand] {
        markdownFiles.flatMap { file in
            (try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8))
                .map { DocCommand.extract(from: $0, file: file) } ?? []
        }
    }

    /// Commands that have a check (run by `documentedCommandRuns`), each once (the first place it appears).
    static var checked: [DocCommand] {
        var seen = Set<String>()
        return all.filter { checks[$0.text] != nil && seen.insert($0.text).inserted }
    }

    /// Files the docs ask the reader to save: "Save this as `NAME`" followed by a fenced block, by name.
    static var savedFiles: [String: String] {
        var files: [String: String] = [:]
        for file in markdownFiles {
            guard let text = try? String(contentsOf: root.appendingPathComponent(file), encoding: .utf8) else { continue }
            files.merge(DocCommand.savedFiles(in: text)) { first, _ in first }
        }
        return files
    }
}

// MARK: - Extraction

/// One command found in a fenced block of a Markdown file.
struct DocCommand: Sendable, CustomTestStringConvertible {
    var file: String
    /// 1-based line of the command's first line.
    var line: Int
    /// The command, blanks collapsed, without prompt or trailing comment.
    var text: String

    var testDescription: String { "\(file):\(line): \(text)" }

    static let commandLanguages: Set<String> = ["sh", "bash", "console"]

    /// The commands in `markdown`, by the rule at the top of this file.
    static func extract(from markdown: String, file: String) -> [DocCommand] {
        var commands: [DocCommand] = []
        var language: String?          // inside a fenced block: its info string's first word
        var fence = ""
        var pending: (line: Int, text: String)?   // a command continued with `\`
        for (index, rawLine) in markdown.components(separatedBy: "\n").enumerated() {
            let trimmed = rawLine.trimmingCharacters(in: .whitespaces)
            if let open = language {
                if trimmed.hasPrefix(fence) && trimmed.allSatisfy({ $0 == fence.first }) {
                    language = nil
                    pending = nil
                    continue
                }
                guard commandLanguages.contains(open) else { continue }
                var content = rawLine
                if let continued = pending {
                    content = continued.text + " " + content
                } else if open == "console" {
                    guard trimmed.hasPrefix("$ ") else { continue }
                    content = String(trimmed.dropFirst(2))
                } else if trimmed.isEmpty || trimmed.hasPrefix("#") {
                    continue
                }
                let start = pending?.line ?? index + 1
                var command = stripComment(content).trimmingCharacters(in: .whitespaces)
                if command.hasSuffix("\\") {
                    command.removeLast()
                    pending = (start, command)
                    continue
                }
                pending = nil
                let collapsed = collapse(command)
                if !collapsed.isEmpty { commands.append(DocCommand(file: file, line: start, text: collapsed)) }
            } else if trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~") {
                let marker = trimmed.first!
                fence = String(trimmed.prefix { $0 == marker })
                let info = trimmed.dropFirst(fence.count).trimmingCharacters(in: .whitespaces)
                language = info.split(separator: " ").first.map { String($0).lowercased() } ?? ""
            }
        }
        return commands
    }

    /// Drops a ` # comment` outside quotes.
    static func stripComment(_ line: String) -> String {
        var quote: Character?
        var previous: Character = " "
        for (offset, character) in line.enumerated() {
            if let open = quote {
                if character == open && previous != "\\" { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" && previous.isWhitespace {
                return String(line.prefix(offset))
            }
            previous = character
        }
        return line
    }

    static func collapse(_ text: String) -> String {
        text.split(whereSeparator: { $0 == " " || $0 == "\t" }).joined(separator: " ")
    }

    /// "Save this as `NAME`" followed by a fenced block: NAME → the block's text.
    static func savedFiles(in markdown: String) -> [String: String] {
        var files: [String: String] = [:]
        var wanted: String?       // named by the last "Save this as" before a block opens
        var inBlock = false
        var capture: (name: String, lines: [String])?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if inBlock {
                if trimmed.hasPrefix("```") {
                    inBlock = false
                    if let capture { files[capture.name] = capture.lines.joined(separator: "\n") + "\n" }
                    capture = nil
                } else {
                    capture?.lines.append(line)
                }
            } else if trimmed.hasPrefix("```") {
                inBlock = true
                capture = wanted.map { ($0, []) }
                wanted = nil
            } else if let range = line.range(of: "Save this as `") {
                let rest = line[range.upperBound...]
                wanted = rest.firstIndex(of: "`").map { String(rest[..<$0]) }
            }
        }
        return files
    }
}

// MARK: - The tests

@Suite("docs: every documented command is run")
struct DocsCommandsTests {
    @Test("every command in README.md and docs/*.md has a check or an allow-list entry")
    func everyCommandIsCovered() {
        let commands = DocsCommands.all
        #expect(commands.count >= 10, "found only \(commands.count) commands in \(DocsCommands.markdownFiles)")
        let uncovered = commands.filter { DocsCommands.checks[$0.text] == nil && DocsCommands.allowed($0.text) == nil }
        #expect(uncovered.isEmpty, """
            documented commands that nothing runs: add each to DocsCommands.checks (how it runs, what it must do) \
            or, if it cannot run in this test, to DocsCommands.allowList with the reason \
            (Tests/AudioGraphCLITests/DocsCommandsTests.swift):
            \(uncovered.map { "  " + $0.testDescription }.joined(separator: "\n"))
            """)
    }

    @Test("every check and allow-list entry is still a documented command")
    func noStaleEntries() {
        let documented = Set(DocsCommands.all.map(\.text))
        let stale = (Array(DocsCommands.checks.keys) + Array(DocsCommands.allowList.keys))
            .filter { !documented.contains($0) }.sorted()
            + DocsCommands.allowListPrefixes.keys.filter { prefix in !documented.contains { $0.hasPrefix(prefix) } }
                .sorted().map { $0 + "…" }
        #expect(stale.isEmpty, """
            entries for commands no longer in README.md or docs/*.md (remove them, or fix their text):
            \(stale.map { "  " + $0 }.joined(separator: "\n"))
            """)
    }

    @Test("commands are read by the rule: sh/bash lines, console `$ ` lines, nothing else")
    func extractionRule() {
        let markdown = """
            Intro `audiograph nodes` in text is not a command.
            ```sh
            # a comment line
            audiograph run a.json   --events jsonl   # a trailing comment
            audiograph run b.json \\
              --set x.y=1

            curl -H "X: #1" "http://h/#frag"
            ```
            ```console
            $ audiograph validate c.json
            ok: c.json is valid
            # output, not a comment
            $ echo $?
            0
            ```
            ```
            $ audiograph untagged
            ```
            ```json
            {"not": "a command"}
            ```
            ```bash
            audiograph nodes
            ```
            """
        let commands = DocCommand.extract(from: markdown, file: "x.md")
        #expect(commands.map(\.text) == [
            "audiograph run a.json --events jsonl",
            "audiograph run b.json --set x.y=1",
            #"curl -H "X: #1" "http://h/#frag""#,
            "audiograph validate c.json",
            "echo $?",
            "audiograph nodes",
        ])
        #expect(commands.map(\.line) == [4, 5, 8, 11, 14, 24])
    }

    @Test("files the docs say to save are found")
    func savedFilesAreFound() {
        let files = DocCommand.savedFiles(in: """
            ```json
            {"skipped": true}
            ```
            Save this as `my.json` next to a recording:

            ```json
            {"version": 1}
            ```
            """)
        #expect(files == ["my.json": "{\"version\": 1}\n"])
        #expect(DocsCommands.savedFiles["my-pipeline.json"] != nil, "docs/getting-started.md saves my-pipeline.json")
    }

    @Test("a documented command does what its check says", arguments: DocsCommands.checked)
    func documentedCommandRuns(_ command: DocCommand) async throws {
        let check = try #require(DocsCommands.checks[command.text])
        // Commands that use the example plugins need them built (scripts/build-plugins.sh; CI builds them and
        // sets AUDIOGRAPH_REQUIRE_EXAMPLE_PLUGINS=1, which makes their absence a failure).
        if command.text.contains("plugin") || command.text.contains("gain") {
            let built = ["gain/release/libGainPlugin.so", "keyword-spotter/release/libKeywordSpotterPlugin.so"].allSatisfy {
                FileManager.default.fileExists(atPath: DocsCommands.root.appendingPathComponent(".build/plugins/" + $0).path)
            }
            if !built {
                let required = ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_EXAMPLE_PLUGINS"] == "1"
                #expect(!required, "\(command.file):\(command.line): the example plugins are not built (scripts/build-plugins.sh)")
                return
            }
        }
        let workspace = try await DocsWorkspace()
        let location = "\(command.file):\(command.line)"

        for step in check.before {
            let result = try await workspace.run(step)
            try #require(result.status == 0 && !result.signalled, "\(location): before it, `\(step)` failed\n\(result)")
            if let token = DocsWorkspace.token(in: result.stdout) { workspace.environment["TOKEN"] = token }
        }
        var server: DocsServer?
        if let command = check.server { server = try await workspace.startServer(command) }
        do {
            switch check.outcome {
            case .exits(let status):
                let result = try await workspace.run(DocsWorkspace.pointPorts(command.text, at: server?.address))
                #expect(result.status == status && !result.signalled && !result.timedOut,
                        "\(location): `\(command.text)` should exit \(status)\n\(result)")
                for text in check.stdout {
                    #expect(result.stdout.contains(text), "\(location): stdout should contain \(text)\n\(result)")
                }
            case .serves(let status):
                let running = try await workspace.startServer(command.text)
                let (exit, stderr) = try await running.stop()
                #expect(exit.status == status && !exit.signalled && !exit.timedOut,
                        "\(location): `\(command.text)` should exit \(status) on SIGINT (exit \(exit.status))\n\(stderr)")
            }
        } catch {
            if let server { _ = try? await server.stop() }
            throw error
        }
        if let server {
            let (exit, stderr) = try await server.stop()
            #expect(exit.status == 0 && !exit.signalled, "\(location): the server should exit 0 on SIGINT\n\(stderr)")
        }
        for file in check.files {
            #expect(workspace.directory.exists(file), "\(location): `\(command.text)` should have made \(file)")
        }
    }
}

// MARK: - Running

/// A temp folder laid out like the repository for the documented commands (see the top of this file).
final class DocsWorkspace: @unchecked Sendable {
    let directory: TemporaryFolder
    /// The environment commands run with (`PATH` finds the built `audiograph`; `TOKEN` once one was made).
    var environment: [String: String]

    init() async throws {
        directory = try TemporaryFolder()
        let files = FileManager.default
        try Self.copyExamples(to: directory.url.appendingPathComponent("examples"))
        for (name, text) in DocsCommands.savedFiles { try directory.write(name, text) }
        // The example plugins, where the docs and examples/plugins/*.json expect them (when built).
        let plugins = DocsCommands.root.appendingPathComponent(".build/plugins")
        if files.fileExists(atPath: plugins.path) {
            try files.createDirectory(at: directory.url.appendingPathComponent(".build"), withIntermediateDirectories: true)
            try files.createSymbolicLink(at: directory.url.appendingPathComponent(".build/plugins"), withDestinationURL: plugins)
        }

        let bin = directory.url.appendingPathComponent(".bin")
        try files.createDirectory(at: bin, withIntermediateDirectories: true)
        try files.createSymbolicLink(at: bin.appendingPathComponent("audiograph"),
                                     withDestinationURL: try Harness.binary().resolvingSymlinksInPath())
        environment = ProcessInfo.processInfo.environment
        environment["PATH"] = bin.path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        // A login shell has USER; the docs use "$USER".
        if environment["USER"]?.isEmpty ?? true { environment["USER"] = ProcessInfo.processInfo.userName }
        environment["TOKEN"] = nil
        // The models folder (`audiograph models`): one of the workspace's own, with links to the models installed
        // in the user's folder, so whisper runs find the default model and `models install` never writes outside.
        let models = directory.url.appendingPathComponent(".models")
        try files.createDirectory(at: models, withIntermediateDirectories: true)
        let installedModels = WhisperModelLocations.folder(environment: environment)
        for name in (try? files.contentsOfDirectory(atPath: installedModels)) ?? [] where name.hasPrefix("ggml-") {
            try files.createSymbolicLink(at: models.appendingPathComponent(name),
                                         withDestinationURL: URL(fileURLWithPath: installedModels + "/" + name))
        }
        environment["AUDIOGRAPH_MODELS_DIR"] = models.path

        // "a recording talk.wav": the bundled call, as WAV.
        let sox = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["sox", "examples/audio/call.flac", "talk.wav"], in: directory)
        guard sox.status == 0 else { throw HarnessError("sox could not make talk.wav: \(sox.stderr)") }
    }

    /// Copies examples/ without the Swift packages in it (at any depth; they have builds of their own) and
    /// hidden files, with every `127.0.0.1:8080` in its configs made `127.0.0.1:0`.
    static func copyExamples(to destination: URL) throws {
        try copy(DocsCommands.root.appendingPathComponent("examples"), to: destination)
    }

    private static func copy(_ source: URL, to destination: URL) throws {
        let files = FileManager.default
        try files.createDirectory(at: destination, withIntermediateDirectories: true)
        for name in try files.contentsOfDirectory(atPath: source.path) where !name.hasPrefix(".") {
            let item = source.appendingPathComponent(name), target = destination.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard files.fileExists(atPath: item.path, isDirectory: &isDirectory) else { continue }
            if isDirectory.boolValue {
                if files.fileExists(atPath: item.appendingPathComponent("Package.swift").path) { continue }
                try copy(item, to: target)
            } else if name.hasSuffix(".json") {
                let text = try String(contentsOf: item, encoding: .utf8)
                try pointPorts(text, at: nil).write(to: target, atomically: true, encoding: .utf8)
            } else {
                try files.copyItem(at: item, to: target)
            }
        }
    }

    /// `127.0.0.1:8080` in `text` made `address` (`127.0.0.1:PORT` of a running server), or `127.0.0.1:0`.
    static func pointPorts(_ text: String, at address: String?) -> String {
        text.replacingOccurrences(of: "127.0.0.1:8080", with: address ?? "127.0.0.1:0")
    }

    /// The token `audiograph tokens create` printed: the last word of the last line.
    static func token(in stdout: String) -> String? {
        let last = stdout.split(separator: "\n").last?.split(separator: " ").last.map(String.init)
        return last.flatMap { $0.hasPrefix("agt_") ? $0 : nil }
    }

    private func process(_ command: String) -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        process.currentDirectoryURL = directory.url
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        return process
    }

    /// Runs a shell command to its end (60 s at most, as every CLI test child).
    func run(_ command: String) async throws -> CLIResult {
        let logs = directory.url.appendingPathComponent(".logs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: logs, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: logs) }
        let outURL = logs.appendingPathComponent("stdout"), errURL = logs.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let out = try FileHandle(forWritingTo: outURL), err = try FileHandle(forWritingTo: errURL)
        let process = process(command)
        process.standardOutput = out
        process.standardError = err
        let exit = try await Harness.runToExit(process)
        try out.close()
        try err.close()
        return CLIResult(arguments: ["sh", "-c", command], status: exit.status, signalled: exit.signalled,
                         timedOut: exit.timedOut, stdout: try String(contentsOf: outURL, encoding: .utf8),
                         stderr: try String(contentsOf: errURL, encoding: .utf8))
    }

    /// Starts a command that serves (`exec`ed by the shell, so SIGINT reaches it) and waits for its
    /// "audiograph: serving http://127.0.0.1:PORT" line on stderr.
    func startServer(_ command: String) async throws -> DocsServer {
        let started = try await Harness.startAnnounced(process("exec " + Self.pointPorts(command, at: nil)),
                                                       prefix: "audiograph: serving http://", name: "`\(command)`")
        let server = DocsServer(address: started.announcement, process: started.process, pipe: started.stderrPipe,
                                stderr: started.stderr, exit: started.exit)
        // Serving means answering: GET /health before anything else (and before SIGINT).
        do {
            let (body, response) = try await URLSession.shared.data(from: URL(string: "http://\(server.address)/health")!)
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard status == 200 else {
                throw HarnessError("`\(command)`: GET /health answered \(status): \(String(decoding: body, as: UTF8.self))")
            }
        } catch {
            _ = try? await server.stop()
            throw error
        }
        return server
    }
}

/// A command started by `DocsWorkspace.startServer`, serving at `address` until `stop()`.
///
/// `@unchecked Sendable`: `Pipe` is not `Sendable`; it is set once here and only kept alive.
final class DocsServer: @unchecked Sendable {
    /// `127.0.0.1:PORT`.
    let address: String
    private let process: ChildProcess
    private let pipe: Pipe
    private let stderr: PipeReader
    private let exit: Task<Harness.Exit, any Error>

    init(address: String, process: ChildProcess, pipe: Pipe, stderr: PipeReader, exit: Task<Harness.Exit, any Error>) {
        self.address = address
        self.process = process
        self.pipe = pipe
        self.stderr = stderr
        self.exit = exit
    }

    /// SIGINT (once), then its exit and everything it wrote on stderr.
    func stop() async throws -> (exit: Harness.Exit, stderr: String) {
        process.signal(SIGINT)
        let status = try await exit.value
        return (status, String(decoding: await stderr.all(), as: UTF8.self))
    }
}
