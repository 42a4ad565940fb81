import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 35, item 4: a call's stored utterances say who said it (`utterances.speaker`, schema version 6 on SQLite,
/// 4 on PostgreSQL), in the transcript JSON file and in `transcript(tid:)`; the store node keeps two speakers'
/// segment 1 as two utterances. A store a writer has not migrated yet reads with no speaker.
@Suite struct SpeakerStoreTests {
    @Test func theStoreNodeKeepsEachSpeakersFinals() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("t.sqlite")
        let node = try NodeHarness(type: TranscriptStoreNode.self, id: "store", parameters: ["path": .string(path)], input: nil,
                                   session: SessionSettings(id: "call", autoStartTranscription: true))
        for (speaker, text) in [("Alice", "good morning"), ("Bob", "morning"), (nil, "no one")] as [(String?, String)] {
            try node.push(Event(node: "asr", time: 1, payload: .transcript(TranscriptUpdate(
                segment: 1, revision: 1, isFinal: true, start: 0, end: 1, text: text, speaker: speaker))))
        }
        try node.finish()
        let store = try SQLiteTranscriptStore(readingFrom: path)
        defer { store.close() }
        let tid = try #require(try store.transcripts(sessionID: "call", after: nil, limit: 5).first?[StoreColumn.tid]?.description)
        let utterances = try #require(try store.transcript(tid: tid)?.utterances)
        #expect(utterances.map(\.text) == ["good morning", "morning", "no one"])
        #expect(utterances.map(\.speaker) == ["Alice", "Bob", nil])
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path("transcripts"))
        let document = try folder.read("transcripts/\(try #require(files.first))")
        #expect(document.contains("\"speaker\":\"Alice\"") && document.contains("\"speaker\":\"Bob\""), "\(document)")
    }

    @Test func aStoreBeforeTheSpeakerColumnReadsWithoutSpeakers() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("t.sqlite")
        let store = try SQLiteTranscriptStore(path: path)
        let session = try store.createSession(NewSession(sessionID: "old", startTime: 1))
        let key = try store.beginTranscript(NewTranscript(tid: "t-old", sessionKey: session, sessionID: "old", language: "en-US",
                                                          startTime: 1, transcriptURL: ""))
        try store.appendUtterance(StoredUtterance(segment: 1, start: 0, end: 1, text: "before"), transcript: key, time: 2)
        // As an older audiograph left it: no speaker column, schema version 5.
        try store.withConnection { database throws(SQLiteError) in
            try database.execute("ALTER TABLE utterances DROP COLUMN speaker")
            try database.setUserVersion(5)
        }
        store.close()
        let reader = try SQLiteTranscriptStore(readingFrom: path)
        defer { reader.close() }
        let utterances = try #require(try reader.transcript(tid: "t-old")?.utterances)
        #expect(utterances.map(\.text) == ["before"] && utterances.map(\.speaker) == [nil])
    }
}
