import AudioGraphCore

/// A caption file being written: the header and trailer of a `CaptionDocumentWriter`, and each chunk written
/// over the trailer (`TrailerAppendFile`: one `pwrite(2)` a chunk, so a killed process leaves a valid file).
enum CaptionFile {
    /// Creates (or truncates) the file, its folder first, and writes `header` + `trailer`. `0644` when new (before
    /// the umask), as other tools write an output the user named.
    static func create(path: String, header: String, trailer: String, node nodeID: String?) throws(GraphError)
        -> TrailerAppendFile {
        try OutputPaths.createParentDirectory(of: path, node: nodeID)
        return try TrailerAppendFile(path: path, mode: 0o644, header: header, trailer: trailer, node: nodeID)
    }
}
