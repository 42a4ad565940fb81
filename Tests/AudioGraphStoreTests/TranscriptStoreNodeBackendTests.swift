import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// The `transcript-store` node's `store` parameter: a SQLite path or a `postgres://` URL.
@Suite("transcript-store node: store by location (SQLite and PostgreSQL)")
struct TranscriptStoreNodeBackendTests {
    private static let session = SessionSettings(id: "meeting-1", room: "standup", autoStartTranscription: true)

    private func final(_ segment: Int, _ text: String, at start: Double) -> Event {
        Event(node: "asr", time: start, payload: .transcript(TranscriptUpdate(
            segment: segment, revision: 1, isFinal: true, start: start, end: start + 1, text: text)))
    }

    @Test("`store` writes to the named store; PostgreSQL keeps no JSON file and an empty transcriptUrl",
          arguments: StoreBackend.tested)
    func writesThroughStore(_ backend: StoreBackend) throws {
        let fixture = try TestStore(backend)
        let harness = try NodeHarness(type: TranscriptStoreNode.self, id: "store",
                                      parameters: ["store": .string(fixture.location)], input: nil, session: Self.session)
        #expect(harness.node.storeLocation == fixture.location)
        try harness.push(final(0, "hello there", at: 0))
        try harness.push(final(1, "general kenobi", at: 2))
        try harness.finish()
        let rows = try fixture.store.transcripts(sessionID: "meeting-1", after: nil, limit: 10)
        #expect(rows.count == 1)
        let record = try TranscriptRecord(row: try #require(rows.first))
        #expect(try fixture.store.detail(tid: record.tid)?.utterances.map(\.text) == ["hello there", "general kenobi"])
        switch backend {
        case .sqlite:
            #expect(record.transcriptUrl.hasPrefix("file://"))
            #expect(FileManager.default.fileExists(atPath: try #require(URL(string: record.transcriptUrl)).path))
        case .postgres:
            #expect(record.transcriptUrl == "")
            #expect(harness.node.path == TranscriptStores.describe(location: fixture.location))
        }
    }

    @Test("path and store together are a config error naming the parameter")
    func pathAndStore() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        #expect {
            _ = try NodeHarness(type: TranscriptStoreNode.self, id: "store",
                                parameters: ["path": .string(folder.path("a.sqlite")), "store": .string("postgres://h/db")],
                                input: nil)
        } throws: { error in
            let error = error as? GraphError
            return error?.code == .invalidConfig && error?.location == "nodes.store.store"
        }
    }

    @Test("a relative SQLite `store` resolves against the config's folder")
    func relativeStore() throws {
        let configuration = NodeConfiguration(id: "store", type: "transcript-store", values: ["store": .string("db/t.sqlite")],
                                              baseDirectory: "/srv/pipelines")
        let node = try TranscriptStoreNode(configuration: configuration)
        #expect(node.location == "/srv/pipelines/db/t.sqlite")
        #expect(node.path == node.location)
    }

    @Test("a PostgreSQL store that cannot be reached is exit 73, and the message masks the password")
    func unreachable() throws {
        #expect {
            _ = try NodeHarness(type: TranscriptStoreNode.self, id: "store",
                                parameters: ["store": .string("postgres://ann:hunter22@127.0.0.1:1/x?connect_timeout=2")],
                                input: nil)
        } throws: { error in
            let error = error as? GraphError
            return error?.code == .cannotCreateOutput && error?.location == "postgres://ann:***@127.0.0.1:1/x?connect_timeout=2"
                && error.map { !"\($0)".contains("hunter22") } == true
        }
    }
}
