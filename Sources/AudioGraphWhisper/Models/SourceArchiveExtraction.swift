import Foundation

extension WhisperModelInstaller {
    /// The archive a `PinnedSourceFile` comes from: in the cache, where scripts/install-whisper.sh keeps it.
    func archivePath(_ file: PinnedSourceFile) -> String {
        fetcher.cacheFolder + "/" + file.archive
    }

    /// Checks the archive against its pinned SHA-256, takes the member out with `tar` into `folder`, checks the
    /// member's own SHA-256 and copies it into `output` (synced; the caller commits it).
    func extract(_ file: PinnedSourceFile, into folder: String, to output: PartialFile,
                 progress: (String) -> Void) throws(ModelInstallError) {
        let archive = archivePath(file)
        guard FileManager.default.fileExists(atPath: archive) else {
            throw .toolFailed(tool: "scripts/install-whisper.sh",
                              reason: "no whisper.cpp source archive at \(archive): run scripts/install-whisper.sh, which downloads and checks it")
        }
        let actual = FileDigest.sha256Hex(ofFile: archive) ?? "unreadable"
        guard actual == file.archiveSHA256 else {
            throw .checksumMismatch(file: archive, expected: file.archiveSHA256, actual: actual)
        }
        progress("extracting \((file.member as NSString).lastPathComponent) from \((archive as NSString).lastPathComponent)")
        guard let outcome = ExternalTool.run(["tar", "-xzf", archive, "-C", folder, file.member], environment: environment) else {
            throw .toolFailed(tool: "tar", reason: "not found")
        }
        guard outcome.status == 0 else {
            if let reason = ModelFiles.diskFailure(in: outcome.errorOutput, writing: fetcher.cacheFolder) {
                throw .writeFailed(path: fetcher.cacheFolder, reason: "cannot extract \((file.member as NSString).lastPathComponent): \(reason)")
            }
            throw .toolFailed(tool: "tar", reason: ExternalTool.tail(outcome.errorOutput, lines: 1))
        }
        let extracted = folder + "/" + file.member
        let digest = FileDigest.sha256Hex(ofFile: extracted) ?? "unreadable"
        guard digest == file.sha256 else { throw .checksumMismatch(file: extracted, expected: file.sha256, actual: digest) }
        // A copy, not a rename: the cache and the models folder may be on different file systems.
        do throws(ModelConversionError) {
            try output.append(contentsOf: extracted)
            try output.sync()
        } catch {
            throw Self.installError(error)
        }
    }
}
