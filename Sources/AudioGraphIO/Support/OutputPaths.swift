import AudioGraphCore
import Foundation

/// Helpers for sinks that create files.
public enum OutputPaths {
    /// Creates the folder that will hold `path`, or throws a `cannotCreateOutput` error naming it.
    public static func createParentDirectory(of path: String, node: NodeConfiguration) throws(GraphError) {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw GraphError(.cannotCreateOutput, at: path, "cannot create the folder \(folder)", node: node.id)
        }
    }
}

