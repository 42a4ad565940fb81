import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing

/// The file caption files and transcript JSON files are written through: a whole document after every append,
/// the mode it is asked for, errors naming the file.
@Suite struct TrailerAppendFileTests {
    /// A fresh folder, removed when `body` returns.
    private func inFolder(_ body: (String) throws -> Void) throws {
        let folder = try TemporaryFolder(prefix: "trailer")
        try withExtendedLifetime(folder) { try body(folder.path) }
    }

    private func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func everyAppendLeavesHeaderChunksAndTrailer() throws {
        try inFolder { folder in
            let path = folder + "/doc.json"
            let file = try TrailerAppendFile(path: path, mode: 0o600, header: "{\"items\":[", trailer: "]}\n")
            #expect(try contents(path) == "{\"items\":[]}\n")
            try file.append("1")
            #expect(try contents(path) == "{\"items\":[1]}\n")
            try file.append(",22")
            try file.append(",\"ü\"")
            #expect(try contents(path) == "{\"items\":[1,22,\"ü\"]}\n")
            try file.finalize()
            #expect(!file.isOpen)
            try file.finalize()  // idempotent
            try file.append(",4")  // nothing once closed
            #expect(try contents(path) == "{\"items\":[1,22,\"ü\"]}\n")
        }
    }

    @Test func anEmptyTrailerAppends() throws {
        try inFolder { folder in
            let path = folder + "/c.srt"
            let file = try TrailerAppendFile(path: path, mode: 0o644, header: "", trailer: "")
            try file.append("1\n00:00:00,000 --> 00:00:01,000\nhello\n\n")
            try file.append("2\n00:00:01,000 --> 00:00:02,000\nagain\n\n")
            file.close()
            #expect(try contents(path).hasSuffix("again\n\n") && contents(path).hasPrefix("1\n"))
        }
    }

    @Test func aNewFileHasTheModeAskedFor() throws {
        try inFolder { folder in
            let path = folder + "/private.json"
            let file = try TrailerAppendFile(path: path, mode: 0o600, header: "[", trailer: "]")
            file.close()
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o077 == 0, "mode \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    @Test func aFolderInTheWayIsTheCreateCodeNamingTheFile() throws {
        try inFolder { folder in
            let path = folder + "/taken"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: false)
            for code in [GraphError.Code.cannotCreateOutput, .io] {
                do throws(GraphError) {
                    _ = try TrailerAppendFile(path: path, mode: 0o600, header: "[", trailer: "]", noun: "the transcript file",
                                              createCode: code, node: "store")
                    Issue.record("a folder opened as a file")
                } catch {
                    #expect(error.code == code && error.location == path && error.nodeID == "store", "\(error)")
                    #expect(error.message.hasPrefix("cannot create the transcript file: "), "\(error)")
                }
            }
        }
    }

    /// A full disk, through a link to /dev/full made in the test's own folder.
    @Test func aFullDiskIsAnErrorNamingTheFile() throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else { return }
        try inFolder { folder in
            let path = folder + "/full.srt"
            try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "/dev/full")
            // The first bytes are written when the file is made: the create code.
            do throws(GraphError) {
                _ = try TrailerAppendFile(path: path, mode: 0o644, header: "WEBVTT\n\n", trailer: "")
                Issue.record("a header written to a full disk")
            } catch {
                #expect(error.code == .cannotCreateOutput && error.location == path, "\(error)")
                #expect(error.message.contains("No space left on device"), "\(error)")
            }
            // Nothing to write at first: the first append fails, as I/O.
            let file = try TrailerAppendFile(path: path, mode: 0o644, header: "", trailer: "")
            do throws(GraphError) {
                try file.append("1\n")
                Issue.record("a chunk written to a full disk")
            } catch {
                #expect(error.code == .io && error.location == path, "\(error)")
                #expect(error.message == "cannot write the file: No space left on device", "\(error)")
            }
            file.close()
        }
    }
}
