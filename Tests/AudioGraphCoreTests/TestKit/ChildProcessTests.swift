import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The test kit's child process: what tests spawn instead of Foundation's `Process`.
@Suite struct ChildProcessTests {
    private func shell(_ script: String, in folder: TemporaryFolder? = nil) -> ChildProcess {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = folder?.url
        process.standardInput = nil
        return process
    }

    @Test func exitStatusesAndSignalsAreReported() async throws {
        let exits = shell("exit 3")
        try exits.run()
        let exit = await exits.exited()
        #expect(exit.status == 3 && exit.reason == .exit)
        #expect(!exits.isRunning && exits.terminationStatus == 3)

        let killed = shell("kill -TERM $$; sleep 5")
        try killed.run()
        let signalled = await killed.exited()
        #expect(signalled.status == SIGTERM && signalled.reason == .uncaughtSignal)
    }

    /// The reason it exists: a descriptor this process has open (another test's pipe, say) never reaches the
    /// child, so that test's reader sees its end of file however long this child lives.
    @Test func theChildInheritsNoDescriptorPastStandardError() async throws {
        let folder = try TemporaryFolder(prefix: "child")
        let openHere = try FileHandle(forWritingTo: URL(fileURLWithPath: try folder.write("held.txt", "")))
        defer { try? openHere.close() }
        let listed = try FileHandle(forWritingTo: URL(fileURLWithPath: try folder.write("fds.txt", "")))
        let listing = shell("ls /proc/$$/fd", in: folder)
        listing.standardOutput = listed
        try listing.run()
        let exit = await listing.exited()
        try listed.close()
        #expect(exit.status == 0)
        let output = try folder.read("fds.txt")
        let descriptors = output.split(separator: "\n").compactMap { Int32($0) }
        #expect(descriptors.contains(1) && !descriptors.contains(openHere.fileDescriptor), "\(descriptors)")
        #expect(descriptors.allSatisfy { $0 <= 2 }, "\(descriptors)")
    }

    @Test func folderEnvironmentAndOutputFileAreTheChildsOwn() async throws {
        let folder = try TemporaryFolder(prefix: "child")
        let output = try FileHandle(forWritingTo: URL(fileURLWithPath: try folder.write("out.txt", "")))
        let process = shell("pwd; echo \"$GREETING\"", in: folder)
        process.environment = ["GREETING": "hello"]
        process.standardOutput = output
        let handled = Mutex(false)
        process.terminationHandler = { _ in handled.withLock { $0 = true } }
        try process.run()
        _ = await process.exited()
        try output.close()
        let lines = try folder.read("out.txt").split(separator: "\n").map(String.init)
        let real = URL(fileURLWithPath: folder.path).resolvingSymlinksInPath().path
        #expect(lines == [real, "hello"] || lines == [folder.path, "hello"], "\(lines)")
        #expect(await eventually { handled.withLock { $0 } })
    }

    /// Writing to a child that has gone is an error here, not the end of the test process: after a `run()` this
    /// process ignores SIGPIPE, while the child keeps the default (it dies of its own broken pipe).
    @Test func aWriteToAChildThatHasGoneIsAnErrorNotASignal() async throws {
        let gone = shell("exit 0")
        let input = Pipe()
        gone.standardInput = input
        try gone.run()
        _ = await gone.exited()
        #expect(throws: (any Error).self) { try input.fileHandleForWriting.write(contentsOf: Data("late".utf8)) }
        // Ignored here: raising it returns (it would end this process otherwise).
        #expect(raise(SIGPIPE) == 0)

        let child = shell("kill -PIPE $$; sleep 5")
        try child.run()
        let exit = await child.exited()
        #expect(exit.status == SIGPIPE && exit.reason == .uncaughtSignal)
    }

    @Test func aMissingExecutableIsAnError() {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/nonexistent/tool")
        #expect(throws: ChildProcess.SpawnFailure.self) { try process.run() }
        #expect(!process.isRunning)
    }
}
