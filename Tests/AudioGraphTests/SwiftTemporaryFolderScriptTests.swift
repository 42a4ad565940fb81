/// scripts/swift-tmp.sh: the scripts' `swift` leaves nothing in the temporary folder, where the swift driver alone
/// leaves an empty `TemporaryDirectory.*` on every call (a test run left dozens in /tmp), and keeps swift's exit
/// status.
import AudioGraphTestKit
import Foundation
import Testing

@Suite(.ownThreads) struct SwiftTemporaryFolderScriptTests {
    private static let helper = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("scripts/swift-tmp.sh").path

    private struct Outcome {
        var status: Int32
        var output: String
        /// What the temporary folder holds afterwards.
        var leftovers: [String]
    }

    /// Runs `script` in bash in an empty package, with TMPDIR a fresh folder.
    private func run(_ script: String) throws -> Outcome {
        let folder = try TemporaryFolder(prefix: "swift-tmp")
        let temporary = folder.path("tmp")
        let package = folder.path("package")
        try FileManager.default.createDirectory(atPath: temporary, withIntermediateDirectories: true)
        _ = try folder.write("package/Package.swift", """
            // swift-tools-version:6.0
            import PackageDescription

            let package = Package(name: "Empty")
            """)
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: package)
        process.environment = ProcessInfo.processInfo.environment.merging(["TMPDIR": temporary]) { $1 }
        let log = folder.path("log")
        _ = FileManager.default.createFile(atPath: log, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return Outcome(status: process.terminationStatus, output: try folder.read("log"),
                       leftovers: try FileManager.default.contentsOfDirectory(atPath: temporary))
    }

    @Test func theScriptsSwiftLeavesTheTemporaryFolderEmpty() throws {
        let bare = try run("swift build --show-bin-path")
        #expect(bare.status == 0, "\(bare.output)")
        #expect(bare.leftovers.contains { $0.hasPrefix("TemporaryDirectory.") },
                "the driver no longer leaves folders (\(bare.leftovers)): scripts/swift-tmp.sh may go")

        let wrapped = try run("source '\(Self.helper)' && swift build --show-bin-path")
        #expect(wrapped.status == 0, "\(wrapped.output)")
        #expect(wrapped.output.contains("/.build/"), "\(wrapped.output)")
        #expect(wrapped.leftovers.isEmpty, "\(wrapped.leftovers)")
    }

    @Test func swiftsExitStatusIsKept() throws {
        let failed = try run("source '\(Self.helper)'; swift build --no-such-option; echo \"status $?\"")
        #expect(failed.output.contains("status 64"), "\(failed.output)")
        #expect(failed.leftovers.isEmpty, "\(failed.leftovers)")
    }
}
