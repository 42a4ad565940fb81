import AudioGraphTestKit
import Foundation
import Testing

// `swift package validate-pipelines` and `swift package scaffold-node` (Plugins/), run for real in small packages
// that depend on this one by path, the way plugin and embedding authors use them.
//
// These tests run nested `swift` commands. Their build folder is kept between runs in the temporary directory
// (`audiograph-command-plugins-*/scratch`, a cache: the first run builds audiograph twice, once as the plugin's
// tool and once as a library, a few minutes on two cores; later runs rebuild what changed), and a lock file keeps
// two test runs from using it at once.

/// The repository root (the folder holding Package.swift).
private let commandPluginPackageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

@Suite(.serialized, .timeLimit(.minutes(20)), .ownThreads)
struct CommandPluginTests {
    /// One good and one bad pipeline: the command fails, names the bad file and the JSON path, and passes the
    /// good one; a JSON file that is not a pipeline is left alone.
    @Test func validatePipelinesReportsTheBadFile() async throws {
        let workspace = try PluginWorkspace()
        defer { workspace.unlock() }
        let package = try workspace.makePackage("pipelines", manifest: """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "Pipelines",
                dependencies: [.package(path: "\(commandPluginPackageRoot.path)")]
            )
            """)
        let folder = package.appendingPathComponent("pipelines")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try PluginWorkspace.toneWAV().write(to: folder.appendingPathComponent("tone.wav"))
        func pipeline(intervalMs: Int) -> String {
            """
            {
              "version": 1,
              "nodes": {
                "src": { "type": "file-source", "path": "tone.wav" },
                "level": { "type": "level-meter", "intervalMs": \(intervalMs) },
                "out": { "type": "wav-sink", "path": "out/tone.wav" }
              },
              "links": ["src -> level -> out"]
            }
            """
        }
        try pipeline(intervalMs: 100).write(to: folder.appendingPathComponent("good.json"), atomically: true, encoding: .utf8)
        try pipeline(intervalMs: 5).write(to: folder.appendingPathComponent("bad.json"), atomically: true, encoding: .utf8)
        try #"{"name": "not a pipeline", "nodes": 3}"#.write(to: package.appendingPathComponent("settings.json"),
                                                               atomically: true, encoding: .utf8)

        let all = try await workspace.swift(["package", "validate-pipelines"], in: package)
        #expect(all.status != 0, "\(all.tail)")
        #expect(all.output.contains("error: pipelines/bad.json: nodes.level.intervalMs: 5 is out of range"), "\(all.tail)")
        #expect(all.output.contains("FAIL  pipelines/bad.json (exit 65)"), "\(all.tail)")
        #expect(all.output.contains("ok    pipelines/good.json"), "\(all.tail)")
        #expect(all.output.contains("1 of 2 pipelines failed validation"), "\(all.tail)")
        #expect(!all.output.contains("settings.json"), "\(all.tail)")

        let good = try await workspace.swift(["package", "validate-pipelines", "pipelines/good.json"], in: package)
        #expect(good.status == 0, "\(good.tail)")
        #expect(good.output.contains("1 pipeline valid."), "\(good.tail)")
    }

    /// Issue 40, item 8: on this repository the command finds the pipelines a user means (the examples), not the
    /// fuzz corpora (broken on purpose), test fixtures or the example plugins' own packages, and passes. It used to
    /// validate 22 "pipelines", 16 of them fuzz seeds, and fail.
    @Test func validatePipelinesPassesOnThisRepository() async throws {
        let workspace = try PluginWorkspace()
        defer { workspace.unlock() }
        let run = try await workspace.swift(["package", "validate-pipelines"], in: commandPluginPackageRoot, sharedScratch: false)
        #expect(run.status == 0, "\(run.tail)")
        #expect(!run.output.contains("fuzz/") && !run.output.contains("Tests/"), "\(run.tail)")
        for example in ["examples/levels.json", "examples/captions.json", "examples/plugins/gain.json"] {
            #expect(run.output.contains("ok    \(example)"), "\(example) validated: \(run.tail)")
        }
    }

    /// A node scaffolded into a downstream package builds without warnings and its generated test passes; a
    /// second scaffold of the same name refuses to overwrite; the package's own validator (`--tool`) knows the node.
    @Test func scaffoldedNodeBuildsAndItsTestPasses() async throws {
        let workspace = try PluginWorkspace()
        defer { workspace.unlock() }
        let identity = commandPluginPackageRoot.lastPathComponent
        let package = try workspace.makePackage("nodes", manifest: """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(
                name: "MyNodes",
                platforms: [.macOS(.v15)],
                dependencies: [.package(path: "\(commandPluginPackageRoot.path)")],
                targets: [
                    .target(name: "MyNodes", dependencies: [.product(name: "AudioGraph", package: "\(identity)")]),
                    .executableTarget(name: "my-audiograph",
                                      dependencies: ["MyNodes", .product(name: "AudioGraph", package: "\(identity)")]),
                    .testTarget(name: "MyNodesTests",
                                dependencies: ["MyNodes", .product(name: "AudioGraphTestKit", package: "\(identity)")]),
                ]
            )
            """)
        let files = [
            ("Sources/MyNodes", "MyNodes.swift", "// Placeholder.\n"),
            ("Tests/MyNodesTests", "MyNodesTests.swift", "// Placeholder.\n"),
            // The validator docs/node-authoring.md shows: built-ins plus this package's node.
            ("Sources/my-audiograph", "main.swift", """
                import AudioGraph
                import Foundation
                import MyNodes

                do throws(GraphError) {
                    var registry = NodeRegistry.builtins
                    try registry.register(NoiseGateNode.self, origin: "MyNodes")
                    let arguments = Array(CommandLine.arguments.dropFirst())
                    guard arguments.count == 2, arguments[0] == "validate" else {
                        throw GraphError(.usage, at: "", "usage: my-audiograph validate CONFIG")
                    }
                    let graph = try loadGraph(configPath: arguments[1], registry: registry)
                    print(graph.summary)
                } catch {
                    FileHandle.standardError.write(Data("my-audiograph: \\(error)\\n".utf8))
                    exit(error.code.exitCode)
                }

                """),
        ]
        for (folder, file, text) in files {
            let url = package.appendingPathComponent(folder)
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            try text.write(to: url.appendingPathComponent(file), atomically: true, encoding: .utf8)
        }

        let scaffold = ["package", "--allow-writing-to-package-directory", "scaffold-node", "noise-gate"]
        let created = try await workspace.swift(scaffold, in: package)
        #expect(created.status == 0, "\(created.tail)")
        #expect(created.output.contains("Sources/MyNodes/NoiseGate/NoiseGateNode.swift"), "\(created.tail)")
        #expect(created.output.contains("Tests/MyNodesTests/NoiseGateNodeTests.swift"), "\(created.tail)")
        #expect(created.output.contains("try registry.register(NoiseGateNode.self, origin: \"MyNodes\")"), "\(created.tail)")
        let source = package.appendingPathComponent("Sources/MyNodes/NoiseGate/NoiseGateNode.swift")
        let original = try String(contentsOf: source, encoding: .utf8)
        #expect(original.contains("type: \"noise-gate\""))

        let again = try await workspace.swift(scaffold, in: package)
        #expect(again.status != 0, "\(again.tail)")
        #expect(again.output.contains("already exists; not overwriting it"), "\(again.tail)")
        #expect(try String(contentsOf: source, encoding: .utf8) == original)

        let build = try await workspace.swift(["build"], in: package)
        #expect(build.status == 0, "\(build.tail)")
        #expect(build.diagnostics(about: "NoiseGateNode").isEmpty, "\(build.diagnostics(about: "NoiseGateNode"))")

        let test = try await workspace.swift(["test"], in: package)
        #expect(test.status == 0, "\(test.tail)")
        #expect(test.output.contains("Suite NoiseGateNodeTests passed"), "\(test.tail)")
        #expect(test.diagnostics(about: "NoiseGateNodeTests").isEmpty, "\(test.diagnostics(about: "NoiseGateNodeTests"))")

        let pipelines = package.appendingPathComponent("pipelines")
        try FileManager.default.createDirectory(at: pipelines, withIntermediateDirectories: true)
        try PluginWorkspace.toneWAV().write(to: pipelines.appendingPathComponent("tone.wav"))
        for (name, gain) in [("gate", "0.5"), ("loud", "20")] {
            try """
                {
                  "version": 1,
                  "nodes": {
                    "src": { "type": "file-source", "path": "tone.wav" },
                    "gate": { "type": "noise-gate", "gain": \(gain) },
                    "out": { "type": "wav-sink", "path": "out/gated.wav" }
                  },
                  "links": ["src -> gate -> out"]
                }
                """.write(to: pipelines.appendingPathComponent(name + ".json"), atomically: true, encoding: .utf8)
        }
        let validated = try await workspace.swift(["package", "validate-pipelines", "--tool", "my-audiograph"], in: package)
        #expect(validated.status != 0, "\(validated.tail)")
        #expect(validated.output.contains("ok    pipelines/gate.json"), "\(validated.tail)")
        #expect(validated.output.contains("error: pipelines/loud.json: nodes.gate.gain: 20 is out of range"), "\(validated.tail)")
    }
}

/// The folder the nested packages and their shared build folder live in, held under a lock for one test.
private struct PluginWorkspace {
    let base: URL
    private let lockDescriptor: Int32

    init() throws {
        // One folder per checkout of audiograph, kept between runs so nested builds are incremental.
        let key = commandPluginPackageRoot.path.map { $0.isLetter || $0.isNumber ? $0 : "-" }
        base = FileManager.default.temporaryDirectory
            .appendingPathComponent("audiograph-command-plugins" + String(key))
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        lockDescriptor = open(base.appendingPathComponent("lock").path, O_CREAT | O_RDWR, 0o644)
        guard lockDescriptor >= 0 else { throw WorkspaceError("cannot open the lock in \(base.path)") }
        guard flock(lockDescriptor, LOCK_EX) == 0 else {
            close(lockDescriptor)
            throw WorkspaceError("cannot lock \(base.path)")
        }
    }

    func unlock() {
        flock(lockDescriptor, LOCK_UN)
        close(lockDescriptor)
    }

    var scratch: URL { base.appendingPathComponent("scratch") }

    /// A fresh package folder (same path every run, so the shared build folder stays valid) with its manifest.
    func makePackage(_ name: String, manifest: String) throws -> URL {
        let folder = base.appendingPathComponent(name)
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try (manifest + "\n").write(to: folder.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
        return folder
    }

    struct Result {
        var status: Int32
        var output: String
        /// The last lines without build progress (`[12/200] Compiling ...`), for failure messages.
        var tail: String {
            output.split(separator: "\n").filter { !($0.first == "[" && $0.dropFirst().first?.isNumber == true) }.suffix(25).joined(separator: "\n")
        }
        /// Warnings and errors that mention `name` (a generated file).
        func diagnostics(about name: String) -> [Substring] {
            output.split(separator: "\n").filter { $0.contains(name) && ($0.contains("warning:") || $0.contains("error:")) }
        }
    }

    /// Runs `swift <arguments> --scratch-path <shared>` in `folder`, stdout and stderr together.
    /// Awaits the process without holding a thread of the concurrency pool: a nested build takes minutes, and
    /// other tests' tasks need those threads meanwhile.
    /// With `sharedScratch` false, the package's own `.build` (this repository, already built by the test run).
    func swift(_ arguments: [String], in folder: URL, sharedScratch: Bool = true) async throws -> Result {
        // One log per call (named after the package and the arguments), kept for a look after a failure.
        let name = ([folder.lastPathComponent] + arguments).joined(separator: "_")
            .map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" }
        let log = base.appendingPathComponent("output-" + String(name) + ".txt")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        defer { try? handle.close() }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        // --scratch-path goes right after the subcommand: `swift package` takes it before the plugin's verb.
        process.arguments = ["swift", arguments[0]] + (sharedScratch ? ["--scratch-path", scratch.path] : []) + arguments.dropFirst()
        process.currentDirectoryURL = folder
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = handle
        process.standardError = handle
        // The compiler driver leaves a `TemporaryDirectory.*` folder in $TMPDIR for every invocation
        // (swiftlang/swift-driver#1613): keep those in the workspace and empty them each call.
        let temporary = base.appendingPathComponent("tmp")
        try? FileManager.default.removeItem(at: temporary)
        try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary.path]) { $1 }
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in continuation.resume(returning: process.terminationStatus) }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        _ = status
        return Result(status: process.terminationStatus, output: try String(contentsOf: log, encoding: .utf8))
    }

    /// 0.1 s of a 440 Hz sine, 16-bit mono 16 kHz WAV.
    static func toneWAV() -> Data {
        let rate = 16_000
        let samples = (0..<rate / 10).map { Int16(8_000 * sin(2 * Double.pi * 440 * Double($0) / Double(rate))) }
        var data = Data()
        func append<T: FixedWidthInteger>(_ value: T) { withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8))
        append(UInt32(36 + samples.count * 2))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(1))  // PCM
        append(UInt16(1))  // mono
        append(UInt32(rate))
        append(UInt32(rate * 2))
        append(UInt16(2))
        append(UInt16(16))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(samples.count * 2))
        for sample in samples { append(sample) }
        return data
    }
}

private struct WorkspaceError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
