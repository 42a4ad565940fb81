import AudioGraphCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A caption file being written: the header and trailer of a `CaptionDocumentWriter`, and each chunk written
/// over the trailer with one `pwrite(2)` (no user-space buffer, so every chunk reaches the kernel at once and
/// a killed process leaves a valid file). Closing syncs it to disk.
final class CaptionFile {
    let path: String
    private let nodeID: String?
    private var descriptor: Int32
    /// Bytes in the file, trailer included.
    private var size: Int = 0
    private let trailer: [UInt8]

    /// Creates (or truncates) the file, its folder first, and writes `header` + `trailer`.
    init(path: String, header: String, trailer: String, node nodeID: String?) throws(GraphError) {
        self.path = path
        self.nodeID = nodeID
        self.trailer = Array(trailer.utf8)
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            throw GraphError(.cannotCreateOutput, at: path, "cannot create the folder \(folder)", node: nodeID)
        }
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw GraphError(.cannotCreateOutput, at: path, "cannot create the file: \(Self.lastError())", node: nodeID)
        }
        do {
            try write(Array(header.utf8) + self.trailer, at: 0)
        } catch {
            close()
            throw GraphError(.cannotCreateOutput, at: path, error.message, node: nodeID)
        }
        size = header.utf8.count + self.trailer.count
    }

    var isOpen: Bool { descriptor >= 0 }

    /// Writes `chunk` where the trailer starts, followed by the trailer.
    func append(_ chunk: String) throws(GraphError) {
        guard isOpen else { return }
        let bytes = Array(chunk.utf8)
        try write(bytes + trailer, at: size - trailer.count)
        size += bytes.count
    }

    /// Syncs and closes the file. Idempotent; a failing sync is reported once.
    func finalize() throws(GraphError) {
        guard isOpen else { return }
        let synced = fsync(descriptor) == 0 || errno == EINVAL || errno == EROFS
        let reason = synced ? "" : Self.lastError()
        close()
        if !synced { throw GraphError(.io, at: path, "cannot write the file to disk: \(reason)", node: nodeID) }
    }

    /// Closes without reporting anything (after a failure).
    func close() {
        guard descriptor >= 0 else { return }
        posixClose(descriptor)
        descriptor = -1
    }

    deinit { close() }

    private func write(_ bytes: [UInt8], at offset: Int) throws(GraphError) {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { raw in
                pwrite(descriptor, raw.baseAddress! + done, raw.count - done, off_t(offset + done))
            }
            if written < 0 {
                if errno == EINTR { continue }
                throw GraphError(.io, at: path, "cannot write: \(Self.lastError())", node: nodeID)
            }
            if written == 0 { throw GraphError(.io, at: path, "cannot write: no space written", node: nodeID) }
            done += written
        }
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}

// File-scope wrapper: inside `CaptionFile`, `close` names its own method.
private func posixClose(_ descriptor: Int32) { _ = close(descriptor) }
