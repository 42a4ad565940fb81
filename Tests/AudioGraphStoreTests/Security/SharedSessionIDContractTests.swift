import AudioGraphStore
import Foundation
import Testing

/// Issue 14, item 1, on every backend (SQLite, and PostgreSQL when configured): reads for one user follow the
/// session row (the run) a transcript belongs to and that row's participants, not the session id, which
/// other users' runs may share.
@Suite("Shared session ids: reads follow the run's participants (SQLite and PostgreSQL)")
struct SharedSessionIDContractTests {
    /// A run of session id `id` that `participants` took part in, with `count` transcripts (tids `id-tN-KEY`).
    private func addRun(_ store: any TranscriptStore, _ id: String, participants: [String],
                        transcripts count: Int) throws -> (key: Int64, tids: [String]) {
        try StoreContractTests().addSession(store, id, transcripts: count, participants: participants)
    }

    @Test("a user's transcripts of a shared id are those of their own runs, by offset and by keyset",
          arguments: StoreBackend.tested)
    func transcriptsOfTheUsersRuns(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        let a = try addRun(store, "standup", participants: ["alice"], transcripts: 2).tids
        let b = try addRun(store, "standup", participants: ["bob"], transcripts: 1).tids
        let both = try addRun(store, "standup", participants: ["alice", "bob"], transcripts: 1).tids
        func tids(_ user: String, after: Int64? = nil, offset: Int = 0, limit: Int = 10) throws -> [String] {
            try store.transcripts(sessionID: "standup", participant: user, after: after, offset: offset, limit: limit)
                .map { $0[StoreColumn.tid]?.description ?? "" }
        }
        #expect(try tids("alice") == a + both)
        #expect(try tids("bob") == b + both)
        #expect(try tids("cy").isEmpty)
        #expect(try tids("alice", offset: 1, limit: 1) == [a[1]])
        let first = try store.transcripts(sessionID: "standup", participant: "bob", after: nil, offset: 0, limit: 1)
        #expect(try tids("bob", after: first.last?.key) == both)
        // The unfiltered local read (the CLI's) still lists every run's transcripts.
        #expect(try store.transcripts(sessionID: "standup", after: nil, limit: 10).count == 4)
    }

    @Test("isParticipant(sessionRow:) answers for that run only", arguments: StoreBackend.tested)
    func participantOfOneRun(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let store = fixture.store
        let (alices, aliceTIDs) = try addRun(store, "standup", participants: ["alice"], transcripts: 1)
        let bobs = try addRun(store, "standup", participants: ["bob"], transcripts: 1).key
        #expect(try store.isParticipant("alice", sessionRow: alices))
        #expect(try !store.isParticipant("alice", sessionRow: bobs))
        #expect(try store.isParticipant("bob", sessionRow: bobs))
        #expect(try !store.isParticipant("bob", sessionRow: alices))
        #expect(try !store.isParticipant("alice", sessionRow: bobs + 100))
        // Both took part in some run of the id.
        #expect(try store.isParticipant("alice", sessionID: "standup") && store.isParticipant("bob", sessionID: "standup"))
        let row = try #require(try store.transcript(tid: aliceTIDs[0])).row
        #expect(row[StoreColumn.sessionRow] == .integer(alices))
    }
}
