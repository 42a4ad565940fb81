import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process for tests, in place of Foundation's `Process`, with the same shape (set the executable,
/// arguments, folder and standard streams, `run()`, then `waitUntilExit()` or a `terminationHandler`).
///
/// Why not `Process`: on Linux it learns of an exit when a socket the child inherits reaches end of file, and
/// it closes the parent's other descriptors in the child one by one from a list taken before the spawn. Tests
/// run in parallel in one process, so a socket or pipe another thread opened in between leaks into a sibling,
/// and a process's exit is then seen only when that sibling ends (seen in CI: a status command that had
/// exited stayed a zombie for 30 s while a worker ran). Here the child closes every descriptor from 3 on as it
/// starts (glibc's `posix_spawn_file_actions_addclosefrom_np`), and a thread of its own waits for the exit
/// with `waitpid` on that pid.
///
/// SIGPIPE: the first `run()` makes the test process ignore it (the child still gets the default), as the
/// `audiograph` binary itself does. A test writing to a child's stdin, or to a FIFO it reads, after the child
/// has gone then gets EPIPE instead of the whole test process dying of the signal (seen in an in-process
/// parallel run: exit 141). Write with `try? handle.write(contentsOf:)`, which reports EPIPE as an error.
///
/// `@unchecked Sendable`: the settings are written before `run()` and only read after it; what changes while
/// the child runs is behind a mutex.
public final class ChildProcess: @unchecked Sendable {
    /// How the child ended.
    public enum TerminationReason: Sendable {
        case exit
        case uncaughtSignal
    }

    public struct SpawnFailure: Error, CustomStringConvertible {
        public let description: String
    }

    /// The program to run: a full path.
    public var executableURL: URL?
    public var arguments: [String] = []
    /// The child's environment; nil passes this process's.
    public var environment: [String: String]?
    /// The child's working folder; nil keeps this process's.
    public var currentDirectoryURL: URL?
    /// A `FileHandle` or a `Pipe` (its reading end); nil is /dev/null. This process's stdin unless set.
    public var standardInput: Any? = FileHandle.standardInput
    /// A `FileHandle` or a `Pipe` (its writing end); nil is /dev/null. This process's stdout unless set.
    public var standardOutput: Any? = FileHandle.standardOutput
    /// A `FileHandle` or a `Pipe` (its writing end); nil is /dev/null. This process's stderr unless set.
    public var standardError: Any? = FileHandle.standardError
    /// Called once, on the waiting thread, when the child has exited and been reaped.
    public var terminationHandler: (@Sendable (ChildProcess) -> Void)? {
        get { state.withLock { $0.handler } }
        set { state.withLock { $0.handler = newValue } }
    }

    private struct State {
        var handler: (@Sendable (ChildProcess) -> Void)?
        var pid: pid_t = 0
        var ended: (status: Int32, reason: TerminationReason)?
        var exitWaiters: [CheckedContinuation<(status: Int32, reason: TerminationReason), Never>] = []
    }

    private let state = Mutex(State())
    private let exited = NSCondition()

    public init() {}

    /// The child's pid once `run()` returned, else 0.
    public var processIdentifier: Int32 { state.withLock { $0.pid } }

    /// True from `run()` until the child has been reaped.
    public var isRunning: Bool { state.withLock { $0.pid != 0 && $0.ended == nil } }

    /// The exit status, or the signal that ended the child. Only once it has exited.
    public var terminationStatus: Int32 { ended().status }

    /// Whether the child exited or a signal ended it. Only once it has exited.
    public var terminationReason: TerminationReason { ended().reason }

    private func ended() -> (status: Int32, reason: TerminationReason) {
        guard let ended = state.withLock({ $0.ended }) else { preconditionFailure("the child process still runs") }
        return ended
    }

    /// Set once, on the first `run()`: SIGPIPE ignored in the test process (see the type's note).
    private static let ignoringBrokenPipes: Void = { _ = Glibc.signal(SIGPIPE, SIG_IGN) }()

    /// Starts the child, in a process group of its own (as `Process` does), with the default signal handling
    /// and an empty signal mask.
    public func run() throws {
        _ = Self.ignoringBrokenPipes
        guard let executable = executableURL?.path else { throw SpawnFailure(description: "no executable set") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        var parentCopiesToClose: [FileHandle] = []
        for (target, stream) in [(Int32(0), standardInput), (1, standardOutput), (2, standardError)] {
            switch stream {
            case nil:
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            case let pipe as Pipe:
                let childEnd = target == 0 ? pipe.fileHandleForReading : pipe.fileHandleForWriting
                posix_spawn_file_actions_adddup2(&actions, childEnd.fileDescriptor, target)
                if !parentCopiesToClose.contains(where: { $0 === childEnd }) { parentCopiesToClose.append(childEnd) }
            case let handle as FileHandle:
                if handle.fileDescriptor != target {
                    posix_spawn_file_actions_adddup2(&actions, handle.fileDescriptor, target)
                }
            default:
                throw SpawnFailure(description: "a standard stream must be a FileHandle, a Pipe or nil")
            }
        }
        try Self.closeDescriptors(&actions, from: 3)
        if let folder = currentDirectoryURL?.path {
            try Self.changeDirectory(&actions, to: folder)
        }

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        Self.startInOwnGroupWithDefaultSignals(&attributes)

        let environment = self.environment ?? ProcessInfo.processInfo.environment
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard status == 0 else {
            throw SpawnFailure(description: "cannot start \(executable): \(String(cString: strerror(status)))")
        }
        // The child has its copies; ours would keep a reader from ever seeing the end of the pipe.
        for handle in parentCopiesToClose { try? handle.close() }
        state.withLock { $0.pid = pid }
        let child = pid
        let waiter = Thread { [self] in reap(child) }
        waiter.name = "ChildProcess \(pid)"
        waiter.start()
    }

    /// Blocks until the child has exited. Not on a concurrency thread: use `terminationHandler` there.
    public func waitUntilExit() {
        exited.lock()
        defer { exited.unlock() }
        while state.withLock({ $0.ended == nil }) { exited.wait() }
    }

    /// Waits, without blocking a thread, until the child has exited; its status (or signal) and how it ended.
    public func exited() async -> (status: Int32, reason: TerminationReason) {
        await withCheckedContinuation { continuation in
            state.withLock { state in
                if let ended = state.ended { continuation.resume(returning: ended) } else {
                    state.exitWaiters.append(continuation)
                }
            }
        }
    }

    /// Sends SIGINT.
    public func interrupt() { signal(SIGINT) }

    /// Sends SIGTERM.
    public func terminate() { signal(SIGTERM) }

    /// Sends `number` to the child while it runs (never to a pid that may have been reused).
    public func signal(_ number: Int32) {
        state.withLock { state in
            if state.pid != 0, state.ended == nil { _ = kill(state.pid, number) }
        }
    }

    private func reap(_ pid: pid_t) {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else {
                status = 127 << 8
                break
            }
        }
        let signal = status & 0x7f
        let ended: (Int32, TerminationReason) = signal == 0 ? ((status >> 8) & 0xff, .exit) : (signal, .uncaughtSignal)
        exited.lock()
        let (handler, waiters) = state.withLock { state in
            state.ended = ended
            defer { state.handler = nil; state.exitWaiters = [] }
            return (state.handler, state.exitWaiters)
        }
        exited.broadcast()
        exited.unlock()
        handler?(self)
        for waiter in waiters { waiter.resume(returning: ended) }
    }

    /// Sets `attributes` so the child starts in a process group of its own, with an empty signal mask and the
    /// default action for the signals a test process may catch or ignore.
    public static func startInOwnGroupWithDefaultSignals(_ attributes: inout posix_spawnattr_t) {
        var mask = sigset_t()
        sigemptyset(&mask)
        posix_spawnattr_setsigmask(&attributes, &mask)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGPIPE, SIGINT, SIGTERM, SIGCHLD, SIGHUP, SIGQUIT] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setpgroup(&attributes, 0)
        posix_spawnattr_setflags(&attributes,
                                 Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    }

    // MARK: glibc extensions Swift's Glibc module does not declare

    private typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32
    private typealias ChangeDirectory = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?,
                                                        UnsafePointer<CChar>?) -> Int32

    /// Adds an action closing every descriptor from `first` on in the child (glibc 2.34's
    /// `posix_spawn_file_actions_addclosefrom_np`, looked up at run time).
    public static func closeDescriptors(_ actions: inout posix_spawn_file_actions_t, from first: Int32) throws {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np"),
              unsafeBitCast(symbol, to: CloseFrom.self)(&actions, first) == 0 else {
            throw SpawnFailure(description: "this C library cannot close a child's descriptors (glibc 2.34 or later)")
        }
    }

    private static func changeDirectory(_ actions: inout posix_spawn_file_actions_t, to folder: String) throws {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addchdir_np"),
              unsafeBitCast(symbol, to: ChangeDirectory.self)(&actions, folder) == 0 else {
            throw SpawnFailure(description: "this C library cannot set a child's folder (glibc 2.29 or later)")
        }
    }
}
