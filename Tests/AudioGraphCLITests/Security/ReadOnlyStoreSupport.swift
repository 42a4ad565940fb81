import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Ways to run `audiograph` against a store it may read but not write (issue 14, items 6 and 7).
///
/// The tests run as root, and root ignores permission bits, so a `chmod 0444` store in a `0555` folder alone
/// proves nothing. Two real read-only paths instead:
/// - **Another user**: as root, `setpriv` drops to `nobody` (uid/gid 65534, no groups) before exec'ing
///   `audiograph`, so the kernel enforces the modes; as anyone else the caller's own uid already does.
/// - **A read-only mount**: `unshare -rm` (a user and mount namespace of its own) bind-mounts the store's folder
///   over itself read-only before exec'ing `audiograph`: every write there is `EROFS`, as on a read-only volume.
///   Where unprivileged namespaces are not allowed, those tests are disabled (`readOnlyMountWorks`).
enum ReadOnlyRunner {
    /// Whether the tests run as root (who ignores permission bits).
    static var isRoot: Bool { getuid() == 0 }

    /// The command that runs `audiograph` as a user the modes apply to (empty: as this process's user).
    static var otherUser: [String] {
        isRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    }

    /// The command that runs `audiograph` with `folder` mounted read-only.
    static func readOnlyMount(_ folder: String) -> [String] {
        ["/usr/bin/unshare", "-rm", "/bin/sh", "-c", "mount --bind -o ro \"$0\" \"$0\" && exec \"$@\"", folder]
    }

    /// Whether `unshare -rm` and a read-only bind mount work here (probed once on a scratch folder).
    static let readOnlyMountWorks: Bool = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("audiograph-ro-probe-\(UUID().uuidString)")
        guard (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return false }
        defer { try? FileManager.default.removeItem(at: folder) }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = Array(readOnlyMount(folder.path).dropFirst()) + ["/bin/sh", "-c", "! touch \"$0/x\" 2>/dev/null",
                                                                           folder.path]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()

    /// Runs `audiograph ARGUMENTS` in `directory` through `launcher` (empty: directly).
    static func run(_ launcher: [String], _ arguments: [String], in directory: TemporaryFolder,
                    sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        guard let first = launcher.first else {
            return try await Harness.audiograph(arguments, in: directory, sourceLocation: sourceLocation)
        }
        let result = try await Harness.run(URL(fileURLWithPath: first),
                                           Array(launcher.dropFirst()) + [try Harness.binary().path] + arguments,
                                           in: directory, sourceLocation: sourceLocation)
        return CLIResult(arguments: arguments, status: result.status, signalled: result.signalled, timedOut: result.timedOut,
                         stdout: result.stdout, stderr: result.stderr)
    }

    /// Sets `mode` on each path (a store made read-only for the test).
    static func chmod(_ mode: Int, _ paths: String...) throws {
        for path in paths { try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path) }
    }

    /// The files in `folder`, sorted (to see that nothing was added, like a `-wal` or `-shm`).
    static func listing(_ folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { !$0.hasPrefix(".") }.sorted()
    }
}
