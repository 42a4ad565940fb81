import AudioGraphCore
import Foundation

/// Tells a model file that exists but may not be read (a permission) from one that is missing.
enum ModelFileAccess {
    /// The first recognizer parameter naming an existing file that this process cannot open for reading
    /// (`EACCES`/`EPERM` from `open(2)`, with the thread's file-system credentials), as
    /// "PARAMETER: PATH: reason"; nil when every named file can be read or none exists (a missing model is left
    /// to the recognizer's own check, `recognizerUnavailable`).
    static func unreadable(in parameters: JSONObject) -> String? {
        for (name, value) in parameters.entries {
            guard let path = value.stringValue, path.hasPrefix("/") || path.contains("/") else { continue }
            if let reason = deniedReason(path) { return "\(name): \(path): \(reason)" }
        }
        return nil
    }

    /// Why `path` cannot be read for lack of permission; nil when it can, or when it does not exist.
    static func deniedReason(_ path: String) -> String? {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        if descriptor >= 0 {
            close(descriptor)
            return nil
        }
        let error = errno
        guard error == EACCES || error == EPERM else { return nil }
        return String(cString: strerror(error))
    }
}

extension VoiceCaptureSession {
    /// What `startRecording()` reports as `speechRecognitionPermissionDenied` for these recognizer parameters:
    /// the first that names an existing file this thread may not read, or nil.
    public static func unreadableModel(in recognizer: JSONObject) -> String? {
        ModelFileAccess.unreadable(in: recognizer)
    }
}
