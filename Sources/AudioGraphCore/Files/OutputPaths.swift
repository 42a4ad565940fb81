#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation

/// Helpers for sinks that create files. A sink checks its file in `start` (`checkCreatable`, which changes
/// nothing) and creates it in `openOutputs` (`createParentDirectory`, then the file), once every node of the
/// run has started: a run that cannot start (a model that does not load, another output that cannot be made)
/// leaves every output as it was.
public enum OutputPaths {
    /// Creates the folder that will hold `path`, or throws a `cannotCreateOutput` error naming it.
    public static func createParentDirectory(of path: String, node nodeID: String?) throws(GraphError) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw GraphError(.cannotCreateOutput, at: path, "cannot create the folder \(folder)", node: nodeID)
        }
    }

    /// Throws the `cannotCreateOutput` error creating `path` would meet, without creating, opening or changing
    /// anything: `path` is a folder or a file this process may not write, or the nearest folder above it that
    /// exists is not a folder or may not be written. (A full disk and the like still show when the file is made.)
    public static func checkCreatable(_ path: String, node nodeID: String?) throws(GraphError) {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) {
            if isFolder.boolValue {
                throw GraphError(.cannotCreateOutput, at: path, "cannot create the file: \(String(cString: strerror(EISDIR)))",
                                 node: nodeID)
            }
            if access(path, W_OK) != 0 { throw GraphError(.cannotCreateOutput, at: path, "cannot write the file: \(lastError())", node: nodeID) }
            return
        }
        var folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder), folder.path != "/" {
            folder.deleteLastPathComponent()
        }
        guard isFolder.boolValue else {
            throw GraphError(.cannotCreateOutput, at: path, "cannot create the file: \(folder.path) is not a folder", node: nodeID)
        }
        if access(folder.path, W_OK | X_OK) != 0 {
            throw GraphError(.cannotCreateOutput, at: path, "cannot create the file in \(folder.path): \(lastError())", node: nodeID)
        }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}
