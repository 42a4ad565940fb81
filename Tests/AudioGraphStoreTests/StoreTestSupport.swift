import AudioGraphCore
import AudioGraphStore
import AudioGraphTestKit
import Dispatch
import Foundation
import Synchronization
import Testing

/// Holds a store query in flight until the test opens it: the query thread signals that it arrived (the test
/// awaits that, a condition, not a sleep) and then waits on a semaphore.
final class Gate: Sendable {
    private struct State {
        var entered = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())
    private let release = DispatchSemaphore(value: 0)

    /// Store side: announce arrival, then block until `open()`.
    func pass() {
        let waiters = state.withLock { state in
            state.entered = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
        release.wait()
    }

    /// Test side: returns once a query is held at the gate.
    func waitUntilEntered() async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                if state.entered { return true }
                state.waiters.append(continuation)
                return false
            }
            if ready { continuation.resume() }
        }
    }

    /// Lets the held query go on.
    func open() { release.signal() }
}

/// A `TranscriptStore` wrapper that can be made to fail: "fail the next query" (reads) and "fail the next
/// write" switches, and a gate that holds the next query in flight. Everything else goes to the real store.
final class ControllableStore: TranscriptStore {
    private struct State {
        var failNextQuery: TranscriptsError?
        var failNextWrite: TranscriptsError?
        var gate: Gate?
        var queries = 0
    }

    let base: any TranscriptStore
    private let state = Mutex(State())

    init(_ base: any TranscriptStore) {
        self.base = base
    }

    /// The next read fails with `error` (once).
    func failNextQuery(with error: TranscriptsError = .storeUnavailable("injected failure")) {
        state.withLock { $0.failNextQuery = error }
    }

    /// The next write fails with `error` (once).
    func failNextWrite(with error: TranscriptsError = .storeUnavailable("disk full (injected)")) {
        state.withLock { $0.failNextWrite = error }
    }

    /// The next read waits at the returned gate until it is opened.
    func holdNextQuery() -> Gate {
        let gate = Gate()
        state.withLock { $0.gate = gate }
        return gate
    }

    /// Reads that reached the store (held and failed ones included).
    var queryCount: Int { state.withLock { $0.queries } }

    private func read() throws(TranscriptsError) {
        let (gate, failure) = state.withLock { state in
            state.queries += 1
            defer {
                state.gate = nil
                state.failNextQuery = nil
            }
            return (state.gate, state.failNextQuery)
        }
        gate?.pass()
        if let failure { throw failure }
    }

    private func write() throws(TranscriptsError) {
        let failure = state.withLock { state in
            defer { state.failNextWrite = nil }
            return state.failNextWrite
        }
        if let failure { throw failure }
    }

    func createSession(_ session: NewSession) throws(TranscriptsError) -> Int64 {
        try write()
        return try base.createSession(session)
    }

    func beginTranscript(_ transcript: NewTranscript) throws(TranscriptsError) -> Int64 {
        try write()
        return try base.beginTranscript(transcript)
    }

    func appendUtterance(_ utterance: StoredUtterance, transcript: Int64, time: Int64) throws(TranscriptsError) {
        try write()
        try base.appendUtterance(utterance, transcript: transcript, time: time)
    }

    func finishTranscript(_ transcript: Int64, endTime: Int64) throws(TranscriptsError) {
        try write()
        try base.finishTranscript(transcript, endTime: endTime)
    }

    func endSession(_ session: Int64, endTime: Int64) throws(TranscriptsError) {
        try write()
        try base.endSession(session, endTime: endTime)
    }

    func removeSessions(workItem: String) throws(TranscriptsError) -> Int {
        try write()
        return try base.removeSessions(workItem: workItem)
    }

    func transcripts(sessionID: String, after: Int64?, limit: Int) throws(TranscriptsError) -> [StoreRow] {
        try read()
        return try base.transcripts(sessionID: sessionID, after: after, limit: limit)
    }

    func sessions(after: Int64?, limit: Int, transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow] {
        try read()
        return try base.sessions(after: after, limit: limit, transcribedOnly: transcribedOnly)
    }

    func transcripts(ofSessions sessionKeys: [Int64]) throws(TranscriptsError) -> [StoreRow] {
        try read()
        return try base.transcripts(ofSessions: sessionKeys)
    }

    func transcript(tid: String) throws(TranscriptsError) -> (row: StoreRow, utterances: [StoredUtterance])? {
        try read()
        return try base.transcript(tid: tid)
    }

    func isParticipant(_ user: String, sessionID: String) throws(TranscriptsError) -> Bool {
        try read()
        return try base.isParticipant(user, sessionID: sessionID)
    }

    func isParticipant(_ user: String, sessionRow: Int64) throws(TranscriptsError) -> Bool {
        try read()
        return try base.isParticipant(user, sessionRow: sessionRow)
    }

    func transcripts(sessionID: String, participant: String, after: Int64?, offset: Int,
                     limit: Int) throws(TranscriptsError) -> [StoreRow] {
        try read()
        return try base.transcripts(sessionID: sessionID, participant: participant, after: after, offset: offset, limit: limit)
    }

    func sessions(participant: String, after: Int64?, offset: Int, limit: Int,
                  transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow] {
        try read()
        return try base.sessions(participant: participant, after: after, offset: offset, limit: limit,
                                 transcribedOnly: transcribedOnly)
    }

    func close() { base.close() }
}

/// A store filled through the protocol: sessions and their transcripts, interleaved so a session's
/// transcripts are not contiguous keys.
struct StoreFixture {
    let folder: TemporaryFolder
    let store: SQLiteTranscriptStore
    /// tids per session id, in the order written.
    var tids: [String: [String]] = [:]
    /// Session keys in the order written, with their ids.
    var sessions: [(key: Int64, id: String)] = []

    init() throws {
        folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        store = try SQLiteTranscriptStore(path: folder.path("store/transcripts.sqlite"))
    }

    /// Adds `count` transcripts to session `id` (a new session row), each with one utterance.
    @discardableResult
    mutating func addSession(_ id: String, room: String = "room", transcripts count: Int, start: Int64 = 1_700_000_000)
        throws -> Int64 {
        let key = try store.createSession(NewSession(sessionID: id, roomName: room, url: "https://media/\(id)", startTime: start))
        sessions.append((key, id))
        for index in 0..<count {
            try addTranscript(session: key, id: id, index: index, start: start)
        }
        return key
    }

    mutating func addTranscript(session key: Int64, id: String, index: Int, start: Int64 = 1_700_000_000) throws {
        let tid = "\(id)-t\(index)"
        let transcript = try store.beginTranscript(NewTranscript(
            tid: tid, sessionKey: key, sessionID: id, language: "en-US", startTime: start + Int64(index) * 60,
            transcriptURL: "file:///tmp/\(tid).json"))
        try store.appendUtterance(StoredUtterance(segment: 0, start: 0.5, end: 1.5, text: "utterance \(index)"),
                                  transcript: transcript, time: start + Int64(index) * 60 + 30)
        tids[id, default: []].append(tid)
    }

    /// Session `a` gets `count` transcripts, alternating with another session's, so keys interleave.
    static func interleaved(_ count: Int, session: String = "a") throws -> StoreFixture {
        var fixture = try StoreFixture()
        let a = try fixture.addSession(session, transcripts: 0)
        let b = try fixture.addSession("other", transcripts: 0)
        for index in 0..<count {
            try fixture.addTranscript(session: a, id: session, index: index)
            try fixture.addTranscript(session: b, id: "other", index: index)
        }
        return fixture
    }

    /// Runs raw SQL on the store's connection.
    func sql(_ text: String) throws {
        try store.withConnection { database throws(SQLiteError) in try database.execute(text) }
    }
}

/// The tids of a page.
func tids(_ records: [TranscriptRecord]) -> [String] { records.map(\.tid) }

/// `a-t0` … for a range of indexes.
func expected(_ session: String, _ range: Range<Int>) -> [String] { range.map { "\(session)-t\($0)" } }
