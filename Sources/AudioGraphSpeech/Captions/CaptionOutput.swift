import AudioGraphCore
import Foundation
import Synchronization
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

/// A thread-safe writer to a terminal stream (stdout or stderr) through `write(2)`, so live captions are not
/// held in a buffer and lines from several threads never interleave within one write.
public final class TerminalOutput: Sendable {
    public let fileDescriptor: Int32
    private let lock = Mutex<Void>(())

    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
    }

    public static let standardOutput = TerminalOutput(fileDescriptor: 1)
    public static let standardError = TerminalOutput(fileDescriptor: 2)

    /// Whether the stream is a terminal (else captions are written as plain lines).
    public var isTerminal: Bool { isatty(fileDescriptor) == 1 }

    /// The terminal's width in columns (80 when unknown).
    public var columns: Int {
        var size = winsize()
        if ioctl(fileDescriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        if let text = ProcessInfo.processInfo.environment["COLUMNS"], let value = Int(text), value > 0 { return value }
        return 80
    }

    /// Writes all of `text`. Failures (a closed pipe) are ignored: captions on screen are not worth stopping a
    /// recording for.
    public func write(_ text: String) {
        let bytes = Array(text.utf8)
        lock.withLock { _ in
            var done = 0
            while done < bytes.count {
                let written = bytes.withUnsafeBytes { raw in
                    posixWrite(fileDescriptor, raw.baseAddress! + done, raw.count - done)
                }
                if written < 0 && errno == EINTR { continue }
                if written <= 0 { return }
                done += written
            }
        }
    }
}

// File-scope wrappers: inside the types above, `close` and `write` name their own methods.
private func posixClose(_ descriptor: Int32) { _ = close(descriptor) }
private func posixWrite(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
    write(descriptor, bytes, count)
}
