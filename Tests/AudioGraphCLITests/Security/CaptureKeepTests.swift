/// Issue 14, item 4: `capture --keep PATH` deleted whatever was at PATH — a folder with everything in it, or a
/// device node. An existing PATH that is not a regular file is now refused before recording starts: exit 73,
/// naming it, and it is left untouched. (Links to /dev/null and to a FIFO are made in a temporary folder; no
/// device node is touched except by `stat`.)
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Security: capture --keep refuses what is not a regular file (issue 14 item 4)")
struct CaptureKeepTests {
    @Test("--keep naming a folder with a file in it: exit 73 naming it; the folder and its file survive")
    func folder() async throws {
        let dir = try TemporaryFolder()
        try dir.write("recordings/keep.txt", "do not delete")
        let result = try await Harness.audiograph(["capture", "--keep", "recordings"], in: dir)
        expectError(result, exit: 73, at: "--keep")
        #expect(result.stderr.contains(dir.path("recordings")) && result.stderr.contains("is a folder"), "\(result)")
        #expect(try dir.read("recordings/keep.txt") == "do not delete")
    }

    @Test("--keep naming a link to /dev/null or to a FIFO, or a FIFO: exit 73; the link and its target untouched",
          arguments: ["null", "fifo-link", "fifo"])
    func specialFiles(_ kind: String) async throws {
        let dir = try TemporaryFolder()
        #expect(mkfifo(dir.path("pipe"), 0o600) == 0)
        let target = kind == "null" ? "/dev/null" : dir.path("pipe")
        let keep = kind == "fifo" ? "pipe" : "link.m4a"
        if kind != "fifo" {
            try FileManager.default.createSymbolicLink(atPath: dir.path("link.m4a"), withDestinationPath: target)
        }
        var before = stat()
        #expect(stat(target, &before) == 0)
        let result = try await Harness.audiograph(["capture", "--keep", keep], in: dir)
        expectError(result, exit: 73, at: "--keep")
        #expect(result.stderr.contains(dir.path(keep)), "\(result)")
        var after = stat()
        #expect(stat(target, &after) == 0 && after.st_mode == before.st_mode && after.st_rdev == before.st_rdev
                    && after.st_ino == before.st_ino, "the target is what it was")
        if kind != "fifo" {
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: dir.path("link.m4a")) == target)
        }
    }

    @Test("--keep in a folder that does not exist: exit 73 before recording")
    func missingFolder() async throws {
        let dir = try TemporaryFolder()
        let result = try await Harness.audiograph(["capture", "--keep", "no/such/folder/take.m4a"], in: dir)
        expectError(result, exit: 73, at: "--keep")
        #expect(result.stderr.contains("does not exist"), "\(result)")
        #expect(!dir.exists("no"))
    }
}
