/// Issue 14, item 2: a batch retry deletes other runs' data. A retry may remove only what its own work item
/// wrote: the session rows its runs tagged with the item's tag (`WorkClaim.itemTag`), never another run's rows
/// under the same session id. Run on SQLite and PostgreSQL.
import AudioGraphStore
import Foundation
import Testing

@Suite("Security: a batch retry removes only its own work item's rows (issue 14 item 2)")
struct BatchRetryRemovalTests {
    /// A session row with one transcript of one utterance; returns the transcript's tid.
    private func write(_ store: any TranscriptStore, session id: String, tid: String, text: String,
                       workItem: String?, participants: [String] = ["alice"]) throws -> String {
        let key = try store.createSession(NewSession(sessionID: id, startTime: 1_700_000_000, participants: participants,
                                                     workItem: workItem))
        let transcript = try store.beginTranscript(NewTranscript(tid: tid, sessionKey: key, sessionID: id, language: "en-US",
                                                                 startTime: 1_700_000_000, transcriptURL: ""))
        try store.appendUtterance(StoredUtterance(segment: 0, start: 0, end: 1, text: text), transcript: transcript,
                                  time: 1_700_000_001)
        return tid
    }

    @Test("an earlier run's session under the id a queued file names survives the file's retry", arguments: StoreBackend.tested)
    func earlierRunSurvivesRetry(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        // An earlier `audiograph run` (no work item) stored sess-alice.
        let alice = try write(store, session: "sess-alice", tid: "alice-run", text: "alice's words", workItem: nil)
        // A batch line names the same session id; its first attempt writes half a transcript and fails.
        _ = try store.enqueue([WorkItem(key: "sess-alice", path: "/calls/broken.flac", sessionID: "sess-alice")])
        let first = try #require(try store.claim(worker: "w1", lease: 60, maxAttempts: 2))
        _ = try write(store, session: "sess-alice", tid: "attempt-1", text: "half", workItem: first.itemTag)
        #expect(try store.fail(first, error: "corrupt FLAC", maxAttempts: 2))
        // The retry removes what attempt 1 wrote, and only that.
        let second = try #require(try store.claim(worker: "w2", lease: 60, maxAttempts: 2))
        #expect(second.attempt == 2 && second.itemTag == first.itemTag, "an item keeps its tag over its claims")
        #expect(try store.removeSessions(workItem: second.itemTag) == 1)
        #expect(try store.transcript(tid: "attempt-1") == nil)
        let kept = try #require(try store.transcript(tid: alice), "the earlier run's transcript is gone")
        #expect(kept.utterances.map(\.text) == ["alice's words"])
        #expect(try store.isParticipant("alice", sessionID: "sess-alice"))
        #expect(try store.transcripts(sessionID: "sess-alice", after: nil, limit: 10).map { $0["tid"]?.description } == [alice])
    }

    @Test("two queued items never share a tag, so one's retry leaves the other's rows alone", arguments: StoreBackend.tested)
    func itemsHaveTheirOwnTags(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        _ = try store.enqueue([WorkItem(key: "a", path: "/a.wav", sessionID: "shared"),
                               WorkItem(key: "b", path: "/b.wav", sessionID: "other")])
        let a = try #require(try store.claim(worker: "w", lease: 60, maxAttempts: 3))
        let b = try #require(try store.claim(worker: "w", lease: 60, maxAttempts: 3))
        #expect(!a.itemTag.isEmpty && a.itemTag != b.itemTag)
        let done = try write(store, session: "shared", tid: "b-run", text: "b", workItem: b.itemTag)
        #expect(try store.complete(b))
        #expect(try store.fail(a, error: "boom", maxAttempts: 3))
        let retry = try #require(try store.claim(worker: "w", lease: 60, maxAttempts: 3))
        #expect(retry.item.key == "a")
        #expect(try store.removeSessions(workItem: retry.itemTag) == 0)
        #expect(try store.transcript(tid: done) != nil)
    }
}
