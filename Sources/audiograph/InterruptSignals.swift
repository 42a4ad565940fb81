import AudioGraph
import Dispatch
import Foundation
import Synchronization

/// SIGINT and SIGTERM, counted together: the Nth signal runs the Nth stage; one more than there are stages exits
/// 130 at once. `run`, `capture` and `serve` have one stage (stop gracefully, outputs finalized); a batch and a
/// worker have two (take no new files; then stop the running ones).
///
/// The handler is a plain `signal(2)` handler that writes the signal's number to a pipe; a thread of its own
/// reads the pipe and runs the stages. Once `init` returns, a signal is never lost: a dispatch signal source
/// needs the signal ignored first and registers asynchronously, so a SIGINT in between (serve's "serving" line
/// printed, the signal sent at once) was dropped and the process never stopped.
/// `@unchecked Sendable`: the stages are set in `init` and only read; the counts are atomics.
final class InterruptSignals: @unchecked Sendable {
    private final class Seen: Sendable {
        let received = Atomic<Int>(0)
        let first = Atomic<Int32>(0)
    }

    private let seen = Seen()
    private let stages: [@Sendable () -> Void]

    /// - Parameter stages: what the first, second, … signal does (each prints its own message).
    init(stages: [@Sendable () -> Void]) {
        self.stages = stages
        SignalPipe.shared.route { [seen, stages] signalNumber in
            let number = seen.received.add(1, ordering: .relaxed).newValue
            if number == 1 { seen.first.store(signalNumber, ordering: .relaxed) }
            guard number <= stages.count else { exit(130) }
            DispatchQueue.global().async { stages[number - 1]() }
        }
        for signalNumber in [SIGINT, SIGTERM] { signal(signalNumber, writeSignalToPipe) }
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

    /// The command is done watching, but the process may still be on its way out (outputs closed, the server
    /// stopping): from now on a signal exits 130 at once, as one past the last stage does. The handler stays
    /// installed, so a Ctrl-C in that window never kills the process by the signal instead (seen in CI: a
    /// second SIGINT right after the stop ended the run "signalled" rather than with 130).
    deinit {
        SignalPipe.shared.route { _ in exit(130) }
    }
}

/// The write end of `SignalPipe.shared`'s pipe, for the handler (set before any handler is installed).
nonisolated(unsafe) private var signalPipeWriteEnd: Int32 = -1

/// The signal handler: only `write(2)`, which is async-signal-safe.
private func writeSignalToPipe(_ number: Int32) {
    var byte = UInt8(truncatingIfNeeded: number)
    _ = write(signalPipeWriteEnd, &byte, 1)
}

/// The pipe between the signal handler and the thread that acts on signals.
private final class SignalPipe: Sendable {
    static let shared = SignalPipe()

    private let receiver = Mutex<(@Sendable (Int32) -> Void)?>(nil)

    private init() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("audiograph: cannot make the signal pipe") }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        signalPipeWriteEnd = ends[1]
        let readEnd = ends[0]
        Thread.detachNewThread { [self] in
            var byte: UInt8 = 0
            while true {
                let count = read(readEnd, &byte, 1)
                if count < 0, errno == EINTR { continue }
                guard count == 1 else { return }
                self.receiver.withLock { $0 }?(Int32(byte))
            }
        }
    }

    /// Where signals go from now on (nil: nowhere).
    func route(_ receiver: (@Sendable (Int32) -> Void)?) {
        self.receiver.withLock { $0 = receiver }
    }
}
