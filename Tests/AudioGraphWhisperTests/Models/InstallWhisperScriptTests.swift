/// Issue 15, install: scripts/install-whisper.sh does nothing over a working install, and does not take a
/// prefix with the wrong whisper version, no whisper-cli or no headers for one (it goes on to build, here
/// stopped early by a PATH without cmake, so the test takes no minutes).
import AudioGraphTestKit
import Foundation
import Testing

@Suite(.ownThreads) struct InstallWhisperScriptTests {
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/install-whisper.sh").path

    private struct Outcome {
        var status: Int32
        var output: String
    }

    private func run(prefix: String, path: String? = nil, cache: String) throws -> Outcome {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [Self.script]
        var environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_WHISPER_PREFIX"] = prefix
        environment["AUDIOGRAPH_CACHE"] = cache
        if let path { environment["PATH"] = path }
        process.environment = environment
        let folder = try TemporaryFolder(prefix: "install-whisper")
        let output = folder.url.appendingPathComponent("install-whisper.log")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return Outcome(status: process.terminationStatus, output: try String(contentsOf: output, encoding: .utf8))
    }

    /// A PATH with the tools the script's check uses but no cmake: past a failed check, the script stops at
    /// its tool check at once (instead of downloading and building for minutes).
    private static func toolsWithoutCMake() throws -> TemporaryFolder {
        let tools = try TemporaryFolder(prefix: "audiograph-models")
        for tool in ["pkg-config", "readelf", "sed", "nproc", "mkdir", "cat", "id", "g++", "python3", "env"] {
            let found = ["/usr/bin/", "/bin/", "/usr/local/bin/"].map { $0 + tool }.first { FileManager.default.isExecutableFile(atPath: $0) }
            if let found { try FileManager.default.createSymbolicLink(atPath: tools.path(tool), withDestinationPath: found) }
        }
        return tools
    }

    /// CI runs scripts/install-deps.sh (and so this script) before the tests: a second run finds the install.
    @Test func aWorkingInstallIsLeftAlone() throws {
        let cache = try TemporaryFolder(prefix: "audiograph-models")
        let tools = try Self.toolsWithoutCMake()
        let outcome = try run(prefix: "/usr/local", path: tools.path, cache: cache.path)
        #expect(outcome.status == 0, "\(outcome.output)")
        #expect(outcome.output == "install-whisper: whisper.cpp 1.8.5 is installed in /usr/local\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: cache.path).isEmpty, "nothing is downloaded or built")
    }

    @Test func anIncompleteOrOtherVersionPrefixIsNotTakenForAnInstall() throws {
        let tools = try Self.toolsWithoutCMake()
        let prefix = try TemporaryFolder(prefix: "audiograph-models")
        try FileManager.default.createDirectory(atPath: prefix.path("lib/pkgconfig"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: prefix.path("include"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: prefix.path("bin"), withIntermediateDirectories: true)
        func pkgConfig(version: String) throws {
            try "prefix=\(prefix.path)\nName: whisper\nDescription: x\nVersion: \(version)\nLibs: -lwhisper\nCflags: -I${prefix}/include\n"
                .write(toFile: prefix.path("lib/pkgconfig/whisper.pc"), atomically: true, encoding: .utf8)
        }
        func whisperCLI(exitStatus: Int) throws {
            try "#!/bin/sh\nexit \(exitStatus)\n".write(toFile: prefix.path("bin/whisper-cli"), atomically: true, encoding: .utf8)
            chmod(prefix.path("bin/whisper-cli"), 0o755)
        }
        let cache = try TemporaryFolder(prefix: "audiograph-models")
        let expectBuild = { (why: String) throws in
            let outcome = try self.run(prefix: prefix.path, path: tools.path, cache: cache.path)
            #expect(outcome.status == 1 && outcome.output.contains("error: cmake is missing"), "\(why): \(outcome.output)")
        }
        try pkgConfig(version: "1.8.4")
        try "".write(toFile: prefix.path("include/whisper.h"), atomically: true, encoding: .utf8)
        try whisperCLI(exitStatus: 0)
        try expectBuild("whisper 1.8.4")
        try pkgConfig(version: "1.8.5")
        try whisperCLI(exitStatus: 127)
        try expectBuild("a whisper-cli that does not run")
        try whisperCLI(exitStatus: 0)
        try FileManager.default.removeItem(atPath: prefix.path("include/whisper.h"))
        try expectBuild("no whisper.h")
        // Everything there: the check passes and nothing is built.
        try "".write(toFile: prefix.path("include/whisper.h"), atomically: true, encoding: .utf8)
        let outcome = try run(prefix: prefix.path, path: tools.path, cache: cache.path)
        #expect(outcome.status == 0 && outcome.output.contains("is installed in \(prefix.path)"), "everything there: \(outcome.output)")
    }
}
