import AudioGraphCore
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A transcript's JSON document, valid at every moment it is written:
///
/// ```json
/// {"tid":"…","sessionId":"…","language":"en-US","utterances":[
/// {"segment":0,"start":0.52,"end":2.9,"text":"go forward ten meters","confidence":0.81,"language":"en-US","words":[{"word":"go","start":0.52,"end":0.7}]}
/// ]}
/// ```
///
/// Each utterance is written with one `pwrite(2)` over the closing `]}` (the utterance, then the closing
/// again), with no user-space buffer: a killed process leaves a whole document holding every utterance
/// written before it. Closing syncs the file.
final class TranscriptFile {
    let path: String
    private var descriptor: Int32
    private var size = 0
    private var count = 0
    private static let trailer = Array("\n]}\n".utf8)

    /// Creates (or truncates) the file, `0600` when new (a transcript is its owner's only, like the store), and
    /// writes the empty document.
    init(path: String, tid: String, sessionID: String, language: String) throws(GraphError) {
        self.path = path
        descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, SQLiteStoreFiles.fileMode)
        guard descriptor >= 0 else {
            throw GraphError(.io, at: path, "cannot create the transcript file: \(Self.lastError())")
        }
        var header = JSONWriter.compact(.object(JSONObject([("tid", .string(tid)), ("sessionId", .string(sessionID)),
                                                            ("language", .string(language))])))
        header.removeLast()  // the closing brace: utterances follow
        header += ",\"utterances\":["
        let bytes = Array(header.utf8) + Self.trailer
        do {
            try write(bytes, at: 0)
        } catch {
            close()
            throw error
        }
        size = bytes.count
    }

    var isOpen: Bool { descriptor >= 0 }

    /// Adds one utterance.
    func append(_ utterance: StoredUtterance) throws(GraphError) {
        guard isOpen else { return }
        let chunk = Array(((count == 0 ? "\n" : ",\n") + JSONWriter.compact(utterance.json)).utf8)
        try write(chunk + Self.trailer, at: size - Self.trailer.count)
        size += chunk.count
        count += 1
    }

    /// Syncs and closes the file. Idempotent.
    func finalize() throws(GraphError) {
        guard isOpen else { return }
        let synced = fsync(descriptor) == 0 || errno == EINVAL || errno == EROFS
        let reason = synced ? "" : Self.lastError()
        close()
        if !synced { throw GraphError(.io, at: path, "cannot write the transcript file to disk: \(reason)") }
    }

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
                throw GraphError(.io, at: path, "cannot write the transcript file: \(Self.lastError())")
            }
            if written == 0 { throw GraphError(.io, at: path, "cannot write the transcript file: no space written") }
            done += written
        }
    }

    static func lastError() -> String { String(cString: strerror(errno)) }
}

// At file scope: inside `TranscriptFile`, `close` names its own method.
private func posixClose(_ descriptor: Int32) { _ = close(descriptor) }
