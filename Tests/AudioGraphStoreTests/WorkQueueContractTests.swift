import AudioGraphStore
import Dispatch
import Foundation
import Synchronization
import Testing

/// The `WorkQueue` rules (see its doc comment), run against each backend. Expired leases are made with a
/// negative lease (already in the past by the database's clock), so no test sleeps.
@Suite("Work queue contract (SQLite and PostgreSQL)")
struct WorkQueueContractTests {
    private func items(_ count: Int, prefix: String = "f") -> [WorkItem] {
        (0..<count).map { WorkItem(key: "\(prefix)\($0)", path: "/audio/\(prefix)\($0).wav", sessionID: "\(prefix)\($0)", room: "r") }
    }

    @Test("enqueue is idempotent by key; claims come in enqueue order with the item's fields", arguments: StoreBackend.tested)
    func enqueue(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let queue = fixture.store
        #expect(try queue.enqueue(items(3)) == 3)
        #expect(try queue.enqueue(items(5)) == 2)
        #expect(try queue.enqueue([WorkItem(key: "f0", path: "/elsewhere.wav")]) == 0)
        #expect(try queue.enqueue([]) == 0)
        #expect(try queue.status() == WorkQueueStatus(queued: 5, running: 0, done: 0, failed: 0, failures: []))
        let claim = try #require(try queue.claim(worker: "w1", lease: 60, maxAttempts: 3))
        #expect(claim.item == WorkItem(key: "f0", path: "/audio/f0.wav", sessionID: "f0", room: "r"))
        #expect(claim.attempt == 1)
        #expect(claim.worker == "w1")
        #expect(claim.token.count == 32)
        let plain = WorkItem(key: "plain", path: "/p.wav")
        _ = try queue.enqueue([plain])
        var claimed: [WorkItem] = []
        while let next = try queue.claim(worker: "w1", lease: 60, maxAttempts: 3) { claimed.append(next.item) }
        #expect(claimed.map(\.key) == ["f1", "f2", "f3", "f4", "plain"])
        #expect(claimed.last == plain)
        #expect(try queue.status().running == 6)
    }

    @Test("an item's pipeline and its base folder round-trip through enqueue and claim", arguments: StoreBackend.tested)
    func pipelineRoundTrip(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let queue = fixture.store
        let config = "{\"nodes\": {\"src\": {\"type\": \"file-source\", \"path\": \"x.wav\"}}, \"note\": \"é ' \\\\ $1\"}\n"
        let with = WorkItem(key: "p1", path: "/audio/p1.wav", sessionID: "p1", pipeline: config, pipelineBase: "/configs/batch")
        let without = WorkItem(key: "p2", path: "/audio/p2.wav")
        #expect(try queue.enqueue([with, without]) == 2)
        let first = try #require(try queue.claim(worker: "w", lease: 60, maxAttempts: 3))
        #expect(first.item == with)
        #expect(first.item.pipeline == config)
        #expect(first.item.pipelineBase == "/configs/batch")
        let second = try #require(try queue.claim(worker: "w", lease: 60, maxAttempts: 3))
        #expect(second.item == without)
        #expect(second.item.pipeline == nil && second.item.pipelineBase == nil)
        // A retried claim (lease expired) carries the pipeline too.
        #expect(try queue.fail(first, error: "boom", maxAttempts: 3))
        let again = try #require(try queue.claim(worker: "w2", lease: 60, maxAttempts: 3))
        #expect(again.attempt == 2)
        #expect(again.item.pipeline == config)
    }

    @Test("concurrent claims from many connections never hand out the same item", arguments: StoreBackend.tested)
    func exclusiveClaims(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let count = 40
        _ = try fixture.store.enqueue(items(count))
        let workers = 6
        let stores = try (0..<workers).map { _ in try fixture.reopen() }
        defer { for store in stores { store.close() } }
        // One thread per worker (not tasks: the claims block, and the pool has a thread per core).
        let results = Mutex<[WorkClaim]>([])
        let errors = Mutex<[TranscriptsError]>([])
        let finished = DispatchSemaphore(value: 0)
        for (index, store) in stores.enumerated() {
            Thread.detachNewThread {
                defer { finished.signal() }
                do throws(TranscriptsError) {
                    while let claim = try store.claim(worker: "w\(index)", lease: 60, maxAttempts: 3) {
                        results.withLock { $0.append(claim) }
                        if try !store.complete(claim) { errors.withLock { $0.append(.malformedData("lost \(claim.item.key)")) } }
                    }
                } catch {
                    errors.withLock { $0.append(error) }
                }
            }
        }
        for _ in 0..<workers { finished.wait() }
        #expect(errors.withLock { $0 } == [])
        let claims = results.withLock { $0 }
        #expect(claims.count == count)
        #expect(Set(claims.map(\.item.key)).count == count)
        #expect(Set(claims.map(\.token)).count == count)
        #expect(try fixture.store.status() == WorkQueueStatus(queued: 0, running: 0, done: count, failed: 0, failures: []))
    }

    @Test("an expired lease is claimed again as attempt 2; the first claim's token is stale", arguments: StoreBackend.tested)
    func leaseExpiry(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let queue = fixture.store
        _ = try queue.enqueue(items(1))
        let first = try #require(try queue.claim(worker: "dies", lease: -5, maxAttempts: 3))
        let second = try #require(try queue.claim(worker: "lives", lease: 60, maxAttempts: 3))
        #expect(second.item == first.item)
        #expect(second.attempt == 2)
        #expect(second.token != first.token)
        #expect(try queue.claim(worker: "third", lease: 60, maxAttempts: 3) == nil)  // leased: not claimable
        #expect(try !queue.heartbeat(first, lease: 60))
        #expect(try !queue.complete(first))
        #expect(try !queue.fail(first, error: "late", maxAttempts: 3))
        #expect(try queue.heartbeat(second, lease: 60))
        #expect(try queue.complete(second))
        #expect(try !queue.complete(second))  // once
        #expect(try queue.status() == WorkQueueStatus(queued: 0, running: 0, done: 1, failed: 0, failures: []))
    }

    @Test("a heartbeat keeps a claim: the lease moves forward and nobody else gets the item", arguments: StoreBackend.tested)
    func heartbeat(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let queue = fixture.store
        _ = try queue.enqueue(items(1))
        let claim = try #require(try queue.claim(worker: "w", lease: -5, maxAttempts: 3))
        #expect(try queue.heartbeat(claim, lease: 60))  // expired but not yet taken over: still this worker's
        #expect(try queue.claim(worker: "other", lease: 60, maxAttempts: 3) == nil)
        #expect(try queue.complete(claim))
    }

    @Test("failures queue the item again until maxAttempts, then it is failed with its last error",
          arguments: StoreBackend.tested)
    func failures(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let queue = fixture.store
        _ = try queue.enqueue([WorkItem(key: "bad", path: "/bad.wav")])
        let first = try #require(try queue.claim(worker: "w", lease: 60, maxAttempts: 2))
        #expect(try queue.fail(first, error: "cannot decode", maxAttempts: 2))
        #expect(try queue.status().queued == 1)
        let second = try #require(try queue.claim(worker: "w", lease: 60, maxAttempts: 2))
        #expect(second.attempt == 2)
        #expect(try queue.fail(second, error: "cannot decode again", maxAttempts: 2))
        #expect(try queue.claim(worker: "w", lease: 60, maxAttempts: 2) == nil)
        #expect(try queue.status() == WorkQueueStatus(
            queued: 0, running: 0, done: 0, failed: 1,
            failures: [(key: "bad", path: "/bad.wav", attempts: 2, error: "cannot decode again")]))
    }

    @Test("a worker that dies on its last attempt leaves the item failed (lease expired) at the next claim",
          arguments: StoreBackend.tested)
    func diesOnLastAttempt(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let queue = fixture.store
        _ = try queue.enqueue(items(2))
        let held = try #require(try queue.claim(worker: "w1", lease: 60, maxAttempts: 2))
        let first = try #require(try queue.claim(worker: "w2", lease: -5, maxAttempts: 2))
        #expect([held.item.key, first.item.key] == ["f0", "f1"])
        let retry = try #require(try queue.claim(worker: "w3", lease: -5, maxAttempts: 2))
        #expect(retry.item.key == "f1")
        #expect(retry.attempt == 2)
        // retry's lease expired on attempt 2 of 2: no more claims; it is failed, naming the worker.
        #expect(try queue.claim(worker: "w4", lease: 60, maxAttempts: 2) == nil)
        #expect(try queue.complete(held))
        let status = try queue.status()
        #expect(status.failed == 1 && status.done == 1 && status.running == 0 && status.queued == 0)
        #expect(status.failures.map(\.key) == ["f1"])
        #expect(status.failures.first?.attempts == 2)
        #expect(status.failures.first?.error.contains("w3") == true)
        #expect(try !queue.complete(retry))
    }

    @Test("a retried file's half-written transcript is replaced, not duplicated (removeSessions(workItem:) before the retry)",
          arguments: StoreBackend.tested)
    func exactlyOnce(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        _ = try store.enqueue([WorkItem(key: "call-7", path: "/call-7.wav", sessionID: "call-7")])
        // The first worker writes half a transcript, then dies.
        let first = try #require(try store.claim(worker: "a", lease: -1, maxAttempts: 3))
        let dead = try store.createSession(NewSession(sessionID: "call-7", startTime: 1, workItem: first.itemTag))
        let half = try store.beginTranscript(NewTranscript(tid: "half", sessionKey: dead, sessionID: "call-7", language: "en",
                                                           startTime: 1, transcriptURL: ""))
        try store.appendUtterance(StoredUtterance(segment: 0, start: 0, end: 1, text: "half"), transcript: half, time: 2)
        // The second worker replaces it.
        let second = try #require(try store.claim(worker: "b", lease: 60, maxAttempts: 3))
        #expect(second.item == first.item)
        #expect(second.itemTag == first.itemTag)
        try store.removeSessions(workItem: second.itemTag)
        let session = try store.createSession(NewSession(sessionID: "call-7", startTime: 3, workItem: second.itemTag))
        let full = try store.beginTranscript(NewTranscript(tid: "full", sessionKey: session, sessionID: "call-7", language: "en",
                                                           startTime: 3, transcriptURL: ""))
        try store.appendUtterance(StoredUtterance(segment: 0, start: 0, end: 1, text: "whole"), transcript: full, time: 4)
        #expect(try store.complete(second))
        #expect(try store.transcripts(sessionID: "call-7", after: nil, limit: 10).map { $0["tid"]?.description } == ["full"])
        #expect(try store.sessions(after: nil, limit: 10, transcribedOnly: false).count == 1)
        #expect(try !store.complete(first))
    }
}
