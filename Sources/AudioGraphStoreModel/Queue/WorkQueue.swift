/// Batch work shared through the store's database (`audiograph batch` / `audiograph worker`): files to
/// transcribe, claimed by any number of workers on any machines.
///
/// Rules every implementation keeps:
/// - Items carry their pipeline (`WorkItem.pipeline` and `pipelineBase`); `claim` returns them as enqueued.
/// - `enqueue` is idempotent: an item whose `key` is already queued (in any state) is not added again.
/// - `claim` hands an item to one worker only (`SELECT … FOR UPDATE SKIP LOCKED` in PostgreSQL) with a lease
///   until `now + lease`; a worker extends it with `heartbeat`. An item whose lease expired is claimable again,
///   until it has been attempted `maxAttempts` times; then it is `failed` with its last error.
/// - `complete` and `fail` take the claim's token: a worker whose lease expired and was taken over cannot
///   overwrite the new claim's result (they return false).
/// - An item keeps one `itemTag` over all its claims (set at the first), and no two items share one.
public protocol WorkQueue: AnyObject, Sendable {
    /// Adds items (skipping keys already present); returns how many were new.
    func enqueue(_ items: [WorkItem]) throws(TranscriptsError) -> Int
    /// Claims the next claimable item for `worker`, or nil when there is none now.
    func claim(worker: String, lease: Double, maxAttempts: Int) throws(TranscriptsError) -> WorkClaim?
    /// Extends a claim's lease; false when the claim is no longer this worker's.
    func heartbeat(_ claim: WorkClaim, lease: Double) throws(TranscriptsError) -> Bool
    /// Marks a claimed item done; false when the claim is no longer this worker's.
    func complete(_ claim: WorkClaim) throws(TranscriptsError) -> Bool
    /// Marks a claimed attempt failed: the item is queued again while attempts remain, else failed for good.
    func fail(_ claim: WorkClaim, error: String, maxAttempts: Int) throws(TranscriptsError) -> Bool
    /// Counts by state, and the items that failed for good with their errors.
    func status() throws(TranscriptsError) -> WorkQueueStatus
}

/// One file to run the batch pipeline on (a manifest line).
public struct WorkItem: Sendable, Equatable {
    /// What makes an item the same item when enqueued again: the manifest's session id, else the file path.
    public var key: String
    public var path: String
    public var sessionID: String?
    public var room: String?
    /// The pipeline config's JSON text the item runs through (as `batch` enqueued it, its `--set` overrides
    /// applied), so a worker needs only the store; nil for items enqueued without one (before the queue held
    /// pipelines), which a worker runs with its own `--pipeline`.
    public var pipeline: String?
    /// The folder relative paths inside `pipeline` are resolved against (the config's own folder, absolute).
    public var pipelineBase: String?

    public init(key: String, path: String, sessionID: String? = nil, room: String? = nil, pipeline: String? = nil,
                pipelineBase: String? = nil) {
        self.key = key
        self.path = path
        self.sessionID = sessionID
        self.room = room
        self.pipeline = pipeline
        self.pipelineBase = pipelineBase
    }
}

/// An item claimed by a worker.
public struct WorkClaim: Sendable, Equatable {
    public var item: WorkItem
    /// 1 for the first attempt.
    public var attempt: Int
    /// Proves the claim: a later claim of the same item gets another token.
    public var token: String
    public var worker: String
    /// The item's own id, the same in every claim of it (made at its first claim): the session rows its runs
    /// write carry it (`SessionSettings.workItem`), so a retry removes exactly those
    /// (`TranscriptStore.removeSessions(workItem:)`).
    public var itemTag: String

    public init(item: WorkItem, attempt: Int, token: String, worker: String, itemTag: String) {
        self.item = item
        self.attempt = attempt
        self.token = token
        self.worker = worker
        self.itemTag = itemTag
    }
}

/// What the queue holds.
public struct WorkQueueStatus: Sendable, Equatable {
    public var queued: Int
    public var running: Int
    public var done: Int
    public var failed: Int
    /// Items failed for good: key, path, attempts and the last error.
    public var failures: [(key: String, path: String, attempts: Int, error: String)]

    public init(queued: Int, running: Int, done: Int, failed: Int, failures: [(key: String, path: String, attempts: Int, error: String)]) {
        self.queued = queued
        self.running = running
        self.done = done
        self.failed = failed
        self.failures = failures
    }

    /// Items not yet done or failed for good: queued, or running under a lease.
    public var unfinished: Int { queued + running }

    public static func == (lhs: WorkQueueStatus, rhs: WorkQueueStatus) -> Bool {
        lhs.queued == rhs.queued && lhs.running == rhs.running && lhs.done == rhs.done && lhs.failed == rhs.failed
            && lhs.failures.map { "\($0.key)|\($0.path)|\($0.attempts)|\($0.error)" }
                == rhs.failures.map { "\($0.key)|\($0.path)|\($0.attempts)|\($0.error)" }
    }
}
