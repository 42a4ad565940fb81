/// Issue 34, items 8 and 4b — writing a model file: a full disk is a write failure naming the disk and the
/// destination (exit 74), never "not a valid model"; the file is written beside its destination and renamed into
/// place only when complete, so a failure leaves nothing there; a killed run's temporary file is removed by the
/// next write beside the same destination, one being written is not. The full disk is `/dev/full` through a link
/// made in the test's temporary folder.
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite("security: a model file is complete or absent", .ownThreads)
struct ModelOutputTests {
    static let tiny = WhisperHyperparameters(vocabularySize: 51864, audioContext: 1500, audioState: 384, audioHeads: 6,
                                             audioLayers: 4, textContext: 448, textState: 384, textHeads: 6,
                                             textLayers: 4, mels: 80, fileType: 1)

    /// A `PartialFile` writing to `/dev/full` through a link in `folder`, for the destination `ggml-full.bin`.
    static func fullDisk(in folder: TemporaryFolder) throws -> PartialFile {
        let link = folder.path("full-disk-\(UUID().uuidString)")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "/dev/full")
        let descriptor = open(link, O_WRONLY | O_CLOEXEC)
        try #require(descriptor >= 0)
        return PartialFile(descriptor: descriptor, path: link, destination: folder.path("ggml-full.bin"))
    }

    @Test("a full disk under the ggml writer: writeFailed naming the destination and the disk")
    func fullDiskInTheWriter() throws {
        let folder = try TemporaryFolder(prefix: "model-output")
        let expected = ModelConversionError.writeFailed(
            path: folder.path("ggml-full.bin"), reason: "no space left on device (the file system holding \(folder.path) is full)")
        // Buffered header and vocabulary: the failure shows when they are flushed.
        let writer = GGMLWriter(try Self.fullDisk(in: folder))
        #expect(throws: expected) {
            try writer.writeHeader(Self.tiny)
            try writer.writeVocabulary([Array("hello".utf8)])
            try writer.finish()
        }
        // A tensor goes straight to the file.
        let tensorWriter = GGMLWriter(try Self.fullDisk(in: folder))
        #expect(throws: expected) {
            try tensorWriter.writeTensor(name: "t", shape: [4], type: .float32, data: Data(count: 16))
        }
        #expect(!folder.exists("ggml-full.bin"))
    }

    @Test("a failed conversion leaves nothing at the destination, nor beside it")
    func failedConversionLeavesNothing() throws {
        let folder = try TemporaryFolder(prefix: "model-output")
        let output = folder.path("ggml-x.bin")
        do {
            let partial = try PartialFile(beside: output)
            let writer = GGMLWriter(partial)
            try writer.writeHeader(Self.tiny)
            try writer.complete()
            #expect(folder.contents.count == 1 && folder.contents[0].hasPrefix(".ggml-x.bin.partial-\(getpid())-"),
                    "\(folder.contents)")
            // Dropped without commit (a conversion that threw).
        }
        #expect(folder.contents.isEmpty, "\(folder.contents)")
    }

    @Test("commit renames into place, never over a file that appeared meanwhile (outputExists, 73)")
    func commitNeverReplacesUnlessAsked() throws {
        let folder = try TemporaryFolder(prefix: "model-output")
        let output = folder.path("ggml-x.bin")
        let first = try PartialFile(beside: output)
        try first.write(Data("one".utf8))
        let second = try PartialFile(beside: output)
        try second.write(Data("two".utf8))
        try first.commit(replacing: false)
        #expect(throws: ModelConversionError.outputExists(path: output)) { try second.commit(replacing: false) }
        #expect(try folder.read("ggml-x.bin") == "one")
        let third = try PartialFile(beside: output)
        try third.write(Data("three".utf8))
        try third.commit(replacing: true)
        #expect(try folder.read("ggml-x.bin") == "three")
        #expect(folder.contents == ["ggml-x.bin"], "\(folder.contents)")
    }

    @Test("leftovers: a dead writer's unlocked file is removed; a locked one, a live writer's and others' are kept")
    func leftoversOfKilledRuns() throws {
        let folder = try TemporaryFolder(prefix: "model-output")
        // No process has this pid (pids are below pid_max, at most 2^22).
        let dead = "\(1 << 22)"
        try folder.write(".ggml-x.bin.partial-\(dead)-1a2b", "killed")
        try folder.write(".ggml-x.bin.partial-\(dead)-locked", "being written over NFS")
        try folder.write(".ggml-x.bin.partial-\(getpid())-3c4d", "this process is writing it")
        try folder.write(".ggml-y.bin.partial-\(dead)-5e6f", "another model's")
        try folder.write("ggml-x.bin.partial-\(dead)-7a8b", "not ours (no dot)")
        let holder = open(folder.path(".ggml-x.bin.partial-\(dead)-locked"), O_RDONLY | O_CLOEXEC)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX | LOCK_NB) == 0)
        PartialFile.removeLeftovers(beside: folder.path("ggml-x.bin"))
        #expect(folder.contents == [".ggml-x.bin.partial-\(dead)-locked", ".ggml-x.bin.partial-\(getpid())-3c4d",
                                    ".ggml-y.bin.partial-\(dead)-5e6f", "ggml-x.bin.partial-\(dead)-7a8b"].sorted(),
                "\(folder.contents)")
    }

    @Test("a tool's system error is a write failure naming the disk; a bad archive is not")
    func toolOutputs() {
        let cache = "/var/cache/models"
        let full = "no space left on device (the file system holding /var/cache/models is full)"
        #expect(ModelFiles.diskFailure(in: "Traceback …\nOSError: [Errno 28] No space left on device", writing: cache) == full)
        #expect(ModelFiles.diskFailure(in: "tar: ggml-silero.bin: Cannot write: No space left on device\n"
            + "tar: Exiting with failure status due to previous errors", writing: cache) == full)
        #expect(ModelFiles.diskFailure(in: "OSError: [Errno 122] Disk quota exceeded", writing: cache)
            == "disk quota exceeded on the file system holding /var/cache/models")
        #expect(ModelFiles.diskFailure(in: "PermissionError: [Errno 13] Permission denied: 'x'", writing: cache)
            == "Permission denied")
        #expect(ModelFiles.diskFailure(in: "zipfile.BadZipFile: File is not a zip file", writing: cache) == nil)
        #expect(ModelFiles.diskFailure(in: "tar: This does not look like a tar archive", writing: cache) == nil)
    }

    @Test("a full disk at install: exit 74 (writeFailed), a bad wheel stays 65 (corruptModel)")
    func installErrorKinds() {
        #expect(WhisperModelInstaller.installError(.writeFailed(path: "/m/ggml-x.bin", reason: "no space left on device"))
            == .writeFailed(path: "/m/ggml-x.bin", reason: "no space left on device"))
        #expect(WhisperModelInstaller.installError(.outputExists(path: "/m/ggml-x.bin")) == .wouldReplace(path: "/m/ggml-x.bin"))
        #expect(WhisperModelInstaller.installError(.corrupt(path: "/w", reason: "r")) == .corruptModel(.corrupt(path: "/w", reason: "r")))
    }
}
