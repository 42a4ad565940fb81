import AudioGraph
import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM, counted together: the Nth signal runs the Nth stage; one more than there are stages exits
/// 130 at once. `run`, `capture` and `serve` have one stage (stop gracefully, outputs finalized); a batch and a
/// worker have two (take no new files; then stop the running ones).
/// `@unchecked Sendable`: the dispatch sources are set up in `init` and only cancelled in `deinit`; the counts are
/// atomics.
final class InterruptSignals: @unchecked Sendable {
    private final class Seen: Sendable {
        let received = Atomic<Int>(0)
        let first = Atomic<Int32>(0)
    }

    private let sources: [any DispatchSourceSignal]
    private let seen = Seen()

    /// - Parameter stages: what the first, second, … signal does (each prints its own message).
    init(stages: [@Sendable () -> Void]) {
        let seen = self.seen
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: .global())
            source.setEventHandler {
                let number = seen.received.add(1, ordering: .relaxed).newValue
                if number == 1 { seen.first.store(signalNumber, ordering: .relaxed) }
                guard number <= stages.count else { exit(130) }
                stages[number - 1]()
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    /// One stage: `stopping: <what> (press Ctrl-C again to quit at once)`, then `onInterrupt`.
    convenience init(stopping what: String = "finalizing outputs", onInterrupt: @escaping @Sendable () -> Void) {
        self.init(stages: [{
            printError(Console.interruptBreak + "audiograph: stopping: \(what) (press Ctrl-C again to quit at once)")
            onInterrupt()
        }])
    }

    /// A batch's or worker's two stages: take no new files (running ones finish), then stop the running ones.
    convenience init(batch control: BatchControl) {
        self.init(stages: [
            {
                printError(Console.interruptBreak + "audiograph: stopping: taking no new files; running files finish "
                    + "(signal again to stop them)")
                control.stop()
            },
            {
                printError("audiograph: stopping the running files, finalizing their outputs (again to quit at once)")
                control.cancel()
            },
        ])
    }

    /// How many signals have come.
    var count: Int { seen.received.load(ordering: .relaxed) }
    /// The first signal's number (0 before any).
    var firstSignal: Int32 { seen.first.load(ordering: .relaxed) }

    deinit {
        for source in sources { source.cancel() }
    }
}
