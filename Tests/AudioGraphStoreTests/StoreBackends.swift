import AudioGraphStore
import AudioGraphTestKit
import Foundation
import Testing

/// The store backends the contract suites run against. PostgreSQL needs a server: its URL comes from
/// `AUDIOGRAPH_TEST_POSTGRES_URL` (`scripts/start-postgres.sh` prints one). When the variable is unset the
/// PostgreSQL cases are left out (and `PostgresAvailabilityTests` is skipped with a note); with
/// `AUDIOGRAPH_REQUIRE_POSTGRES=1` they run anyway and fail.
enum StoreBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var postgresURL: String? {
        ProcessInfo.processInfo.environment["AUDIOGRAPH_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    static var postgresRequired: Bool { ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_POSTGRES"] == "1" }

    /// Whether the PostgreSQL cases run (configured, or required and so failing when not configured).
    static var postgresEnabled: Bool { postgresURL != nil || postgresRequired }

    /// SQLite always; PostgreSQL when enabled.
    static var tested: [StoreBackend] { postgresEnabled ? [.sqlite, .postgres] : [.sqlite] }
}

struct PostgresNotConfigured: Error, CustomStringConvertible {
    var description: String {
        "AUDIOGRAPH_REQUIRE_POSTGRES=1 but AUDIOGRAPH_TEST_POSTGRES_URL is unset: run scripts/start-postgres.sh"
    }
}

/// A fresh, empty store for one test: a SQLite file in a scratch folder, or a PostgreSQL schema of its own
/// (`ag_test_<uuid>`, chosen through `search_path` in the URL) that is dropped again afterwards.
final class TestStore: Sendable {
    let backend: StoreBackend
    /// What `TranscriptStores.open(location:)` takes to reach this store (another connection to it).
    let location: String
    let store: any FullTranscriptStore
    private let folder: TemporaryFolder?
    /// The PostgreSQL schema to drop, and the server URL to drop it through.
    private let schema: (name: String, url: String)?

    /// - Parameter open: open the store (false: only make the empty database / folder, for migration tests).
    init(_ backend: StoreBackend, open: Bool = true) throws {
        self.backend = backend
        switch backend {
        case .sqlite:
            let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
            self.folder = folder
            schema = nil
            location = folder.path("store/transcripts.sqlite")
        case .postgres:
            guard let url = StoreBackend.postgresURL else { throw PostgresNotConfigured() }
            let name = "ag_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let admin = try PostgresConnection(url: url)
            defer { admin.close() }
            try admin.executeScript("CREATE SCHEMA \(name)")
            folder = nil
            schema = (name, url)
            location = Self.url(url, searchPath: name)
        }
        store = open ? try TranscriptStores.open(location: location) : UnopenedStore()
    }

    /// `url` with `options=-csearch_path=<schema>` added.
    static func url(_ url: String, searchPath schema: String) -> String {
        url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)"
    }

    /// Another connection to the same store.
    func reopen(create: Bool = true) throws(TranscriptsError) -> any FullTranscriptStore {
        try TranscriptStores.open(location: location, create: create)
    }

    deinit {
        store.close()
        if let schema, let admin = try? PostgresConnection(url: schema.url) {
            try? admin.executeScript("DROP SCHEMA \(schema.name) CASCADE")
            admin.close()
        }
    }
}

/// A stand-in for `TestStore(open: false)`: every call fails with `storeNotOpened`.
private final class UnopenedStore: TranscriptStore, AccessTokenStore, WorkQueue {
    func createSession(_ session: NewSession) throws(TranscriptsError) -> Int64 { throw .storeNotOpened }
    func beginTranscript(_ transcript: NewTranscript) throws(TranscriptsError) -> Int64 { throw .storeNotOpened }
    func appendUtterance(_ utterance: StoredUtterance, transcript: Int64, time: Int64) throws(TranscriptsError) {
        throw .storeNotOpened
    }
    func finishTranscript(_ transcript: Int64, endTime: Int64) throws(TranscriptsError) { throw .storeNotOpened }
    func endSession(_ session: Int64, endTime: Int64) throws(TranscriptsError) { throw .storeNotOpened }
    func removeSessions(workItem: String) throws(TranscriptsError) -> Int { throw .storeNotOpened }
    func transcripts(sessionID: String, after: Int64?, limit: Int) throws(TranscriptsError) -> [StoreRow] { throw .storeNotOpened }
    func sessions(after: Int64?, limit: Int, transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow] { throw .storeNotOpened }
    func transcripts(ofSessions sessionKeys: [Int64]) throws(TranscriptsError) -> [StoreRow] { throw .storeNotOpened }
    func transcript(tid: String) throws(TranscriptsError) -> (row: StoreRow, utterances: [StoredUtterance])? {
        throw .storeNotOpened
    }
    func isParticipant(_ user: String, sessionID: String) throws(TranscriptsError) -> Bool { throw .storeNotOpened }
    func isParticipant(_ user: String, sessionRow: Int64) throws(TranscriptsError) -> Bool { throw .storeNotOpened }
    func transcripts(sessionID: String, participant: String, after: Int64?, offset: Int,
                     limit: Int) throws(TranscriptsError) -> [StoreRow] { throw .storeNotOpened }
    func sessions(participant: String, after: Int64?, offset: Int, limit: Int,
                  transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow] { throw .storeNotOpened }
    func close() {}
    func addToken(_ token: StoredAccessToken) throws(TranscriptsError) { throw .storeNotOpened }
    func token(id: String) throws(TranscriptsError) -> StoredAccessToken? { throw .storeNotOpened }
    func tokens() throws(TranscriptsError) -> [StoredAccessToken] { throw .storeNotOpened }
    func revokeTokens(user: String, at time: Int64) throws(TranscriptsError) -> Int { throw .storeNotOpened }
    func enqueue(_ items: [WorkItem]) throws(TranscriptsError) -> Int { throw .storeNotOpened }
    func claim(worker: String, lease: Double, maxAttempts: Int) throws(TranscriptsError) -> WorkClaim? { throw .storeNotOpened }
    func heartbeat(_ claim: WorkClaim, lease: Double) throws(TranscriptsError) -> Bool { throw .storeNotOpened }
    func complete(_ claim: WorkClaim) throws(TranscriptsError) -> Bool { throw .storeNotOpened }
    func fail(_ claim: WorkClaim, error: String, maxAttempts: Int) throws(TranscriptsError) -> Bool { throw .storeNotOpened }
    func status() throws(TranscriptsError) -> WorkQueueStatus { throw .storeNotOpened }
}
