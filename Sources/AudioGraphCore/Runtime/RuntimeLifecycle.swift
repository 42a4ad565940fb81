/// The runtime's start, run and stop as a value: events in, actions out, no lock and no thread inside, so
/// every transition is tested as a plain value (after swift-nio's `NIOTypedHTTPServerUpgraderStateMachine` and
/// GStreamer's state-change results). `GraphRuntime` keeps one behind a single `Mutex` and carries out what each
/// event returns.
///
/// ```
/// idle ──beginStart──▶ starting ──started──▶ running ──finished──▶ finished
///                          └──────startFailed──▶ failedToStart
/// ```
///
/// - Commands sent before the sources can take them (idle, starting) are held, in order, and handed over by
///   `started` ahead of anything sent later; `startFailed` fails them, and every command sent once the graph
///   failed to start or has finished is refused: a caller is always answered (`not_running`), never left
///   waiting for a delivery that cannot come.
/// - Whoever waits for the start is answered once it is decided, or at once when it already is.
///
/// `Command` and `Waiter` are whatever the owner needs to answer (a command and its completion, a
/// continuation); tests use plain values.
struct RuntimeLifecycle<Command, Waiter> {
    enum State: Equatable, Sendable {
        /// Built, `run` not called yet.
        case idle
        /// `run` is starting the nodes.
        case starting
        /// Every node started; the sources take commands.
        case running
        /// A node's `start` threw; nothing runs.
        case failedToStart(GraphError)
        /// The run is over: every node stopped.
        case finished
    }

    private(set) var state: State = .idle
    /// Commands sent before the sources could take them, in the order sent.
    private var held: [Command] = []
    /// Who waits for the start to be decided.
    private var waiters: [Waiter] = []

    /// What `send` asks the owner to do with a command.
    enum SendAction {
        /// Kept here; `started` hands it over, or `startFailed` fails it.
        case hold
        /// The sources take commands: post it to them now.
        case post
        /// Nothing will run it: answer `not_running` now.
        case refuse
    }

    mutating func send(_ command: Command) -> SendAction {
        switch state {
        case .idle, .starting:
            held.append(command)
            return .hold
        case .running:
            return .post
        case .failedToStart, .finished:
            return .refuse
        }
    }

    /// `run` begins. False when the runtime has run already (it runs once).
    mutating func beginStart() -> Bool {
        guard state == .idle else { return false }
        state = .starting
        return true
    }

    /// Every node started: post the returned commands to the sources (in order, before anything sent later)
    /// and answer the waiters "started".
    mutating func started() -> (commands: [Command], waiters: [Waiter]) {
        guard state == .starting else { return ([], []) }
        state = .running
        return take()
    }

    /// A node's start threw `error`: answer the returned commands `not_running` and the waiters `error`.
    mutating func startFailed(_ error: GraphError) -> (commands: [Command], waiters: [Waiter]) {
        guard state == .starting else { return ([], []) }
        state = .failedToStart(error)
        return take()
    }

    /// The run is over (sources ended, every node stopped); later commands are refused. Returns what was
    /// still held (nothing, after `started`), to answer `not_running`.
    mutating func finished() -> [Command] {
        if case .failedToStart = state { return [] }
        state = .finished
        return take().commands
    }

    /// What `waitForStart` asks the owner to do.
    enum WaitAction: Equatable {
        /// Undecided: the waiter is kept and answered by `started` or `startFailed`.
        case wait
        /// Decided: answer now, nil for started.
        case answer(GraphError?)
    }

    mutating func waitForStart(_ waiter: Waiter) -> WaitAction {
        switch state {
        case .idle, .starting:
            waiters.append(waiter)
            return .wait
        case .running, .finished:
            return .answer(nil)
        case .failedToStart(let error):
            return .answer(error)
        }
    }

    private mutating func take() -> (commands: [Command], waiters: [Waiter]) {
        defer {
            held.removeAll()
            waiters.removeAll()
        }
        return (held, waiters)
    }
}

/// What became of a command sent to a running graph (`GraphRuntime.send`).
public enum CommandDelivery: Sendable, Equatable {
    /// Every running source passed it into the graph, at its place in the stream.
    case delivered
    /// Nothing will run it: the graph failed to start, or has ended.
    case notRunning
}
