import CSndFile
import Foundation
import Synchronization

/// libsndfile keeps the error of a failed `sf_open` in one process-wide variable
/// (`sf_error(NULL)` / `sf_strerror(NULL)`). Opening and reading that error is done
/// under this lock so two threads opening files at once each get their own message.
let sndFileOpenLock = Mutex<Void>(())

/// Opens `path` with `sf_open` and, on failure, returns libsndfile's error code and text,
/// read atomically with the open.
func sndFileOpen(
    _ path: String, mode: Int, info: inout SF_INFO
) -> (handle: OpaquePointer?, errorCode: Int32, errorText: String) {
    sndFileOpenLock.withLock { _ in
        if let handle = sf_open(path, Int32(mode), &info) { return (handle, 0, "") }
        return (nil, sf_error(nil), sndFileCleanMessage(sf_strerror(nil)))
    }
}

/// libsndfile's messages come in several styles ("Error : ...", "System error : ...",
/// trailing periods and newlines). Strip these so they read well after "cannot open PATH: ".
func sndFileCleanMessage(_ cString: UnsafePointer<CChar>?) -> String {
    guard let cString else { return "unknown error" }
    var text = String(cString: cString)
    for prefix in ["System error : ", "Error : ", "Error: "] where text.hasPrefix(prefix) {
        text.removeFirst(prefix.count)
    }
    let lines = text.split(whereSeparator: \.isNewline)
        .map { $0.trimmingCharacters(in: CharacterSet(charactersIn: " \t.")) }
        .filter { !$0.isEmpty }
    return lines.isEmpty ? "unknown error" : lines.joined(separator: "; ")
}
