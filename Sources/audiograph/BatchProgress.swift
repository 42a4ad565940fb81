import AudioGraph
import Dispatch
import Foundation
import Synchronization

/// SIGINT/SIGTERM for a batch: first, take no new files (running ones finish); second, stop the running ones
/// (outputs finalized); third, exit 130 at once.
/// `@unchecked Sendable`: the dispatch sources are set up in `init` and only cancelled in `deinit`.
final class BatchSignals: @unchecked Sendable {
    private let sources: [any DispatchSourceSignal]
    private final class Seen: Sendable {
        let received = Atomic<Int>(0)
        let first = Atomic<Int32>(0)
    }

    private let seen = Seen()

    init(control: BatchControl) {
        var sources: [any DispatchSourceSignal] = []
        let seen = self.seen
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                switch seen.received.add(1, ordering: .relaxed).newValue {
                case 1:
                    seen.first.store(signalNumber, ordering: .relaxed)
                    printError(Console.interruptBreak + "audiograph: stopping: taking no new files; running files finish "
                        + "(signal again to stop them)")
                    control.stop()
                case 2:
                    printError("audiograph: stopping the running files, finalizing their outputs (again to quit at once)")
                    control.cancel()
                default:
                    exit(130)
                }
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    var count: Int { seen.received.load(ordering: .relaxed) }
    var firstSignal: Int32 { seen.first.load(ordering: .relaxed) }

    deinit {
        for source in sources { source.cancel() }
    }
}

/// The batch's status line on a terminal: files finished of the total, running, failed, elapsed time.
/// `@unchecked Sendable`: `timer` is a dispatch source (thread-safe); the rest is behind a mutex or atomic.
final class BatchProgress: @unchecked Sendable {
    private let total: Int?
    private let enabled: Bool
    private let counts = Mutex<(running: Int, finished: Int, failed: Int)>((0, 0, 0))
    private let started = Date()
    /// Made only when enabled: a dispatch source released without ever being resumed traps.
    private let timer: (any DispatchSourceTimer)?

    init(total: Int?, enabled: Bool) {
        self.total = total
        self.enabled = enabled
        timer = enabled ? DispatchSource.makeTimerSource(queue: .global()) : nil
    }

    func start() {
        guard let timer else { return }
        timer.schedule(deadline: .now() + 0.2, repeating: 0.2)
        timer.setEventHandler { [self] in draw() }
        timer.resume()
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

    func stop() {
        guard let timer else { return }
        timer.cancel()
        clear()
    }

    func clear() {
        guard enabled else { return }
        Console.setStatus(nil)
    }

    private func draw() {
        let counts = counts.withLock { $0 }
        var line = "batch "
        if let total, total > 0 {
            let width = 30
            let filled = min(width, counts.finished * width / total)
            line += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                + "] \(counts.finished)/\(total) files"
        } else {
            line += "\(counts.finished) files"
        }
        line += "  \(counts.running) running  \(counts.failed) failed  "
            + ProgressDisplay.clock(Date().timeIntervalSince(started))
        Console.setStatus(line)
    }
}
