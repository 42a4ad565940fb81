#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file that is a whole document at every moment it is written: a header, the chunks appended so far, and a
/// trailer (`]}` of a JSON document, nothing for SRT). Each chunk is written with one `pwrite(2)` over the
/// trailer (the chunk, then the trailer again), with no user-space buffer: every chunk reaches the kernel at
/// once, and a killed process leaves a valid file holding every chunk written before it. Finalizing syncs the
/// file to disk. Caption files (`caption-sink`) and transcript JSON files (`transcript-store`) are written so.
///
/// Errors are `GraphError`s naming the file (and the node, when there is one): `createCode` when the file
/// cannot be made or its first bytes cannot be written, `.io` for everything after.
public final class TrailerAppendFile {
    public let path: String
    private let noun: String
    private let nodeID: String?
    private let trailer: [UInt8]
    private var descriptor: Int32
    /// Bytes in the file, trailer included.
    private var size = 0

    /// Creates (or truncates) the file with `mode` (before the umask) when new, and writes `header` + `trailer`.
    /// - Parameters:
    ///   - noun: the file in messages: "the file", "the transcript file" (`cannot create the file: …`).
    ///   - createCode: the error code when the file cannot be made (`.cannotCreateOutput` for an output the user
    ///     named, `.io` for one the store makes).
    public init(path: String, mode: mode_t, header: String, trailer: String, noun: String = "the file",
                createCode: GraphError.Code = .cannotCreateOutput, node nodeID: String? = nil) throws(GraphError) {
        self.path = path
        self.noun = noun
        self.nodeID = nodeID
        self.trailer = Array(trailer.utf8)
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode)
        guard descriptor >= 0 else {
            throw GraphError(createCode, at: path, "cannot create \(noun): \(Self.lastError())", node: nodeID)
        }
        let first = Array(header.utf8) + self.trailer
        do {
            try write(first, at: 0)
        } catch {
            close()
            throw GraphError(createCode, at: path, error.message, node: nodeID)
        }
        size = first.count
    }

    /// False once finalized or closed.
    public var isOpen: Bool { descriptor >= 0 }

    /// Writes `chunk` where the trailer starts, followed by the trailer. Nothing once closed.
    public func append(_ chunk: String) throws(GraphError) {
        guard isOpen else { return }
        let bytes = Array(chunk.utf8)
        try write(bytes + trailer, at: size - trailer.count)
        size += bytes.count
    }

    /// Syncs and closes the file. Idempotent; a failing sync is reported once (a file system that cannot sync,
    /// `EINVAL` or `EROFS`, is not a failure).
    public func finalize() throws(GraphError) {
        guard isOpen else { return }
        let synced = fsync(descriptor) == 0 || errno == EINVAL || errno == EROFS
        let reason = synced ? "" : Self.lastError()
        close()
        if !synced { throw GraphError(.io, at: path, "cannot write \(noun) to disk: \(reason)", node: nodeID) }
    }

    /// Closes without syncing or reporting anything (after a failure). Idempotent.
    public func close() {
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
                throw GraphError(.io, at: path, "cannot write \(noun): \(Self.lastError())", node: nodeID)
            }
            if written == 0 { throw GraphError(.io, at: path, "cannot write \(noun): no space written", node: nodeID) }
            done += written
        }
    }

    private static func lastError() -> String { String(cString: strerror(errno)) }
}

// At file scope: inside `TrailerAppendFile`, `close` names its own method.
private func posixClose(_ descriptor: Int32) { _ = close(descriptor) }
