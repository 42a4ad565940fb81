import Foundation

extension BatchFileResult: CustomStringConvertible {
    /// `done: calls/a.wav (session a): 4.0 s of audio in 0.81 s`, or the failure with its error.
    public var description: String {
        let what = switch BatchOutcome(self) {
        case .done: "done"
        case .failed, .retried: "failed"
        case .interrupted: lostClaim ? "claim lost" : "interrupted"
        }
        var text = String(format: "%@: %@ (session %@): %.1f s of audio in %.2f s", what, item.path, sessionID,
                          audioSeconds, wallSeconds)
        if attempt > 1 { text += " (attempt \(attempt))" }
        if let error { text += ": \(error)" }
        return text
    }
}
