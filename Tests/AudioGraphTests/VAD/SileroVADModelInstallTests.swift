/// Issue 16, VAD item 1 (model): `audiograph models install silero` installs whisper.cpp's own Silero VAD 6.2.0
/// ggml file from the pinned whisper.cpp source archive (checked by SHA-256, the bytes of
/// `for-tests-silero-v6.2.0-ggml.bin`); `models install silero-6.2.3` converts the pinned `silero-vad==6.2.3`
/// wheel's safetensors to the ggml layout whisper.cpp's `convert-silero-vad-to-ggml.py` writes: the same bytes on
/// every run (its SHA-256 is pinned here), and the layout of the 6.2.0 file (the same size, header and tensor
/// headers; only the version and the weights differ).
import AudioGraph
import AudioGraphTestKit
import AudioGraphWhisper
import Foundation
import Testing

@Suite(.ownThreads) struct SileroVADModelInstallTests {
    static let convertedSHA256 = "7589faf6fa057724488dfafa9766da709383d40126c2a45e3caef904cdf4a8c3"

    /// The tensor headers of a Silero ggml file: (offset, rank, name length, type, dims, name) and where each
    /// tensor's data starts, walking the file.
    private func tensorHeaders(_ data: Data) throws -> [String] {
        let bytes = [UInt8](data)
        func int32(_ at: Int) -> Int {
            Int(Int32(bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24))
        }
        var offset = 8 + int32(4) + 22 * 4
        var headers: [String] = []
        while offset < bytes.count {
            let rank = int32(offset), nameLength = int32(offset + 4), type = int32(offset + 8)
            let dims = (0..<rank).map { int32(offset + 12 + 4 * $0) }
            let nameStart = offset + 12 + 4 * rank
            let name = String(decoding: bytes[nameStart..<(nameStart + nameLength)], as: UTF8.self)
            headers.append("\(offset) \(name) \(type) \(dims)")
            offset = nameStart + nameLength + dims.reduce(1, *) * (type == 1 ? 2 : 4)
        }
        try #require(offset == bytes.count, "tensors end at the file's end")
        return headers
    }

    private var reference: Data {
        get throws {
            try Data(contentsOf: SileroVADTestSupport.whisperFixtures.appendingPathComponent("for-tests-silero-v6.2.0-ggml.bin"))
        }
    }

    @Test func defaultModelIsWhisperCppsOwn() throws {
        let installed = try Data(contentsOf: URL(fileURLWithPath: try SileroVADTestSupport.installedModel()))
        #expect(installed == (try reference))
    }

    /// A fresh conversion of the 6.2.3 wheel in a temporary models folder.
    private func convert623() throws -> (digest: String, bytes: Int64, data: Data) {
        let wheel = FileManager.default.homeDirectoryForCurrentUser
            .appendingPathComponent(".cache/audiograph/wheels/silero_vad-6.2.3-py3-none-any.whl").path
        let cache = ProcessInfo.processInfo.environment["AUDIOGRAPH_CACHE"].map { $0 + "/wheels/silero_vad-6.2.3-py3-none-any.whl" }
        let given = [cache, wheel].compactMap { $0 }.first { FileManager.default.fileExists(atPath: $0) }
        let path = try #require(given, "no cached silero-vad wheel: run `audiograph models install silero-6.2.3`")
        let folder = try TemporaryFolder(prefix: "silero-install")
        let installer = WhisperModelInstaller(environment: ["AUDIOGRAPH_MODELS_DIR": folder.path, "HOME": NSHomeDirectory(),
                                                           "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"])
        let outcome = try installer.install("silero-6.2.3", wheels: [path])
        guard case .installed(let file, let digest, let bytes) = outcome else { throw InstallTestError("not installed: \(outcome)") }
        return (digest, bytes, try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    @Test func convertedModelHasTheLayoutOfWhisperCppsOwn() throws {
        let installed = try convert623().data
        let reference = try reference
        #expect(installed.count == reference.count)
        // magic, "silero-16k", version 6.2.x (the patch at byte 26), then the architecture
        #expect(installed.prefix(26) == reference.prefix(26))
        #expect(installed[26] == 3 && reference[26] == 0)
        #expect(installed[27..<(8 + 10 + 22 * 4)] == reference[27..<(8 + 10 + 22 * 4)])
        let headers = try tensorHeaders(installed)
        #expect(headers.count == 15)
        #expect(headers == (try tensorHeaders(reference)))
        #expect(installed != reference)
    }

    /// Converting the cached wheel twice gives the same bytes, whose SHA-256 is pinned.
    @Test func conversionIsDeterministicAndPinned() throws {
        for _ in 0..<2 {
            let result = try convert623()
            #expect(result.digest == Self.convertedSHA256)
            #expect(result.bytes == 885_098)
        }
    }
}

struct InstallTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
