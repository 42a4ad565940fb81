import AudioGraphCore
import Foundation

/// A transcript's JSON document, valid at every moment it is written:
///
/// ```json
/// {"tid":"…","sessionId":"…","language":"en-US","utterances":[
/// {"segment":0,"start":0.52,"end":2.9,"text":"go forward ten meters","confidence":0.81,"language":"en-US","words":[{"word":"go","start":0.52,"end":0.7}]}
/// ]}
/// ```
///
/// Each utterance is written over the closing `]}` (`TrailerAppendFile`: one `pwrite(2)`, no user-space
/// buffer), so a killed process leaves a whole document holding every utterance written before it. Finalizing
/// syncs the file.
final class TranscriptFile {
    private let file: TrailerAppendFile
    private var count = 0

    /// Creates (or truncates) the file, `0600` when new (a transcript is its owner's only, like the store), and
    /// writes the empty document.
    init(path: String, tid: String, sessionID: String, language: String) throws(GraphError) {
        var header = JSONWriter.compact(.object(JSONObject([("tid", .string(tid)), ("sessionId", .string(sessionID)),
                                                            ("language", .string(language))])))
        header.removeLast()  // the closing brace: utterances follow
        header += ",\"utterances\":["
        file = try TrailerAppendFile(path: path, mode: SQLiteStoreFiles.fileMode, header: header, trailer: "\n]}\n",
                                     noun: "the transcript file", createCode: .io)
    }

    var path: String { file.path }
    var isOpen: Bool { file.isOpen }

    /// Adds one utterance.
    func append(_ utterance: StoredUtterance) throws(GraphError) {
        guard isOpen else { return }
        try file.append((count == 0 ? "\n" : ",\n") + JSONWriter.compact(utterance.json))
        count += 1
    }

    /// Syncs and closes the file. Idempotent.
    func finalize() throws(GraphError) { try file.finalize() }

    /// Closes without syncing (after a failure). Idempotent.
    func close() { file.close() }
}
