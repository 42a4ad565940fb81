import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 8: the files a store creates are its owner's only. A new store file and SQLite's `-wal` and
/// `-shm` beside it are `0600` (they hold transcripts and token hashes), the folders the store makes `0700`,
/// and each transcript's JSON file `0600` — whatever the umask lets through beyond that.
@Suite("Store files are created private (0600 files, 0700 folders)")
struct StoreFileModeTests {
    private func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test("a new store, its -wal and -shm, and the folder made for it")
    func storeFiles() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("new/db/t.sqlite")
        let store = try SQLiteTranscriptStore(path: path)
        defer { store.close() }
        // A write while the connection is open: the -wal and -shm exist now.
        let session = try store.createSession(NewSession(sessionID: "s", startTime: 1, participants: ["ann"]))
        try store.addToken(StoredAccessToken(id: "id", user: "ann", secretHash: [1, 2, 3], created: 1))
        #expect(session > 0)
        #expect(try mode(path) == 0o600)
        #expect(try mode(path + "-wal") == 0o600)
        #expect(try mode(path + "-shm") == 0o600)
        #expect(try mode(folder.path("new/db")) == 0o700)
    }

    @Test("an existing store file keeps its mode (the store never changes a mode it did not set)")
    func existingFileKeepsItsMode() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("t.sqlite")
        try SQLiteTranscriptStore(path: path).close()
        try FileManager.default.setAttributes([.posixPermissions: 0o640], ofItemAtPath: path)
        let store = try SQLiteTranscriptStore(path: path)
        store.close()
        #expect(try mode(path) == 0o640)
    }

    @Test("the transcripts folder and each transcript's JSON file")
    func transcriptFiles() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let node = try NodeHarness(type: TranscriptStoreNode.self, id: "store",
                                   parameters: ["path": .string(folder.path("db/t.sqlite"))], input: nil,
                                   session: SessionSettings(id: "m", autoStartTranscription: true))
        try node.push(Event(node: "asr", time: 0, payload: .transcript(TranscriptUpdate(
            segment: 0, revision: 1, isFinal: true, start: 0, end: 1, text: "private words"))))
        try node.finish()
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path("db/transcripts"))
        #expect(files.count == 1 && files[0].hasSuffix(".json"), "\(files)")
        #expect(try mode(folder.path("db/transcripts")) == 0o700)
        for file in files { #expect(try mode(folder.path("db/transcripts/\(file)")) == 0o600) }
        #expect(try mode(folder.path("db/t.sqlite")) == 0o600)
    }
}
