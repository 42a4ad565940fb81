import AudioGraph
import Foundation
import Synchronization

/// The batch's status line on a terminal: files finished of the total, running, failed, elapsed time.
final class BatchProgress: Sendable {
    private struct Counts {
        var running = 0
        var finished = 0
        var failed = 0
    }

    private let total: Int?
    private let counts = Mutex(Counts())
    private let started = Date()
    private let ticker: StatusLineTicker

    init(total: Int?, enabled: Bool) {
        self.total = total
        ticker = StatusLineTicker(every: 0.2, enabled: enabled)
    }

    func start() {
        ticker.start { [self] in
            let now = counts.withLock { $0 }
            return Self.line(total: total, running: now.running, finished: now.finished, failed: now.failed,
                             elapsed: Date().timeIntervalSince(started))
        }
    }

    func began() { counts.withLock { $0.running += 1 } }

    func finished(failed: Bool, retried: Bool = false) {
        counts.withLock { counts in
            counts.running -= 1
            if retried { return }
            counts.finished += 1
            if failed { counts.failed += 1 }
        }
    }

    func stop() { ticker.stop() }

    /// Removes the status line (drawn again on the next tick unless stopped).
    func clear() { ticker.clear() }

    /// `batch [###---] 3/10 files  2 running  0 failed  00:12` (no bar when the total is unknown).
    static func line(total: Int?, running: Int, finished: Int, failed: Int, elapsed: Double) -> String {
        var line = "batch "
        if let total, total > 0 {
            line += "[" + StatusText.bar(Double(finished) / Double(total), width: 30) + "] \(finished)/\(total) files"
        } else {
            line += "\(finished) files"
        }
        return line + "  \(running) running  \(failed) failed  " + StatusText.clock(elapsed)
    }
}
