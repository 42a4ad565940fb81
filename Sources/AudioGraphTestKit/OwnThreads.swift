import Foundation
import Synchronization
import Testing

/// A task executor that runs every job on a thread of its own, outside libdispatch's worker pool.
///
/// Why tests need it: a test that computes for long (a real decode, a model conversion) holds the thread it runs
/// on. On Linux, libdispatch adds a worker to its pool only while fewer workers than cores are *runnable*, so on
/// 2 cores two such tests running on pool threads leave every other task in the process without a thread until
/// they finish, however long that is: a server test's client stops reading, a browser test stops steering its
/// run, and their deadlines pass (seen in CI: 25 s in which no async test in the process ran). Blocked threads
/// the pool replaces; busy ones it does not. Jobs run here never count against the pool.
///
/// Starting a thread for each job costs little next to what the tests that use it compute.
public final class OwnThreadExecutor: TaskExecutor {
    /// The one instance: executors are compared by identity, and this one has no state.
    public static let shared = OwnThreadExecutor()

    /// The name of the threads jobs run on (Linux keeps 15 bytes of a thread name).
    public static let threadName = "ag-own-thread"

    private init() {}

    /// Whether the calling code runs on one of this executor's threads.
    public static var isCurrentThread: Bool { Thread.current.name == threadName }

    /// Starts a thread that runs `job` and ends.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedTaskExecutor()
        Thread.detachNewThread {
            Thread.current.name = Self.threadName
            job.runSynchronously(on: executor)
        }
    }
}

/// Runs each test of a suite (or one test) on `OwnThreadExecutor`: its body, synchronous or not, and the tasks it
/// starts. For tests that keep a thread busy computing; see `OwnThreadExecutor` for why.
///
/// At most one such test a core runs at a time (the others wait without holding a thread): the pool used to
/// limit them so, by starving everything else, and more at once would only slow the tests that wait for a child
/// process or a deadline.
///
/// ```swift
/// @Suite(.ownThreads) struct WhisperSpeechTests { … }
/// ```
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    /// The trait reaches every test of the suite it is given to, nested suites included.
    public var isRecursive: Bool { true }

    /// Shared by every test that has the trait.
    static let slots = ComputeSlots(ProcessInfo.processInfo.activeProcessorCount)

    /// Waits for a slot, then runs the test case with `OwnThreadExecutor` as its executor preference.
    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        // Called for the suite and the test as a whole too (no test case): those only pass on.
        guard testCase != nil else { return try await function() }
        await Self.slots.acquire()
        defer { Self.slots.release() }
        try await withTaskExecutorPreference(OwnThreadExecutor.shared) {
            // Taking the preference does not always move the task at once: one resumed on a pool thread (by the
            // slot's release) was seen to stay there until it next suspended, and a synchronous test body never
            // suspends. So the task moves now, before the body's first line.
            while !OwnThreadExecutor.isCurrentThread { await Task.yield() }
            try await function()
        }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Each test on threads of its own, outside libdispatch's pool (`OwnThreadExecutor`), one test a core at a time.
    public static var ownThreads: Self { OwnThreadsTrait() }
}

/// A counting semaphore whose waiters suspend instead of blocking a thread. First come, first served.
final class ComputeSlots: Sendable {
    private struct State {
        var free: Int
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state: Mutex<State>

    init(_ count: Int) { state = Mutex(State(free: max(count, 1))) }

    /// Returns once a slot is this caller's.
    func acquire() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                guard state.free > 0 else {
                    state.waiting.append(continuation)
                    return false
                }
                state.free -= 1
                return true
            }
            if now { continuation.resume() }
        }
    }

    /// Callers waiting for a slot.
    var waiters: Int { state.withLock { $0.waiting.count } }

    /// Gives the slot to the longest waiter, or frees it.
    func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiting.isEmpty else {
                state.free += 1
                return nil
            }
            return state.waiting.removeFirst()
        }
        next?.resume()
    }
}
