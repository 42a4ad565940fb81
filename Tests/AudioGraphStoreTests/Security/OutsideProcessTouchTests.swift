import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 34, items 1-3: a second process touching a SQLite store (`sqlite3 t.sqlite 'select …'`, `audiograph
/// tokens create`, another run) while this process writes it. Opening a reader beside the writer used to
/// `open()` and `close()` the database file to read its header; closing any descriptor of a file drops all of
/// the process's POSIX locks on it, SQLite's too, so the other process, on closing, took itself for the last
/// user and deleted the `-wal` and `-shm` under the running writer: later commits went to a deleted file
/// (silently lost) or failed with "disk I/O error". The CLI tests (OutsideTouchCLITests) do the same through
/// `serve --run`, `batch` and `worker`.
@Suite("Security: a second process touching a SQLite store loses nothing (issue 34, items 1-3)")
struct OutsideProcessTouchTests {
    /// Runs the `sqlite3` command-line shell on `path` with `sql`: a second process that opens the store, reads
    /// or writes, and closes it.
    static func sqlite3(_ path: String, _ sql: String) throws -> String {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["sqlite3", path, sql]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = nil
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw HarnessFailure("sqlite3 \(sql): \(text)") }
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct HarnessFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    private static func utterance(_ index: Int) -> StoredUtterance {
        StoredUtterance(segment: index, start: Double(index), end: Double(index) + 0.5, text: "sentence \(index)",
                        confidence: 0.9, words: [], language: "en-US")
    }

    @Test("a writer with a reader opened beside it, and a second process reading then writing mid-run: every commit kept",
          arguments: ["select count(*) from utterances", "insert into access_tokens (id, user, secret_hash, created) values ('x', 'carol', x'00', 1)"])
    func writerKeepsEveryCommit(_ outsideSQL: String) throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("t.sqlite")
        let writer = try SQLiteTranscriptStore(path: path)
        defer { writer.close() }
        let session = try writer.createSession(NewSession(sessionID: "call", startTime: 1, participants: ["alice"]))
        let transcript = try writer.beginTranscript(NewTranscript(tid: "t-1", sessionKey: session, sessionID: "call",
                                                                  language: "en-US", startTime: 1, transcriptURL: ""))
        try writer.appendUtterance(Self.utterance(0), transcript: transcript, time: 2)
        // What `serve --run` does: the API opens readers (and a change-stamp watch) while the pipeline writes.
        let reader = try SQLiteTranscriptStore(readingFrom: path)
        defer { reader.close() }
        #expect(reader.changeStamp() != nil)
        let stampBefore = reader.changeStamp()

        _ = try Self.sqlite3(path, outsideSQL)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the -wal is still there under the running writer")
        #expect(FileManager.default.fileExists(atPath: path + "-shm"), "the -shm is still there under the running writer")
        for index in 1..<12 {
            try writer.appendUtterance(Self.utterance(index), transcript: transcript, time: 2 + Int64(index))
        }
        // A second outside touch, and the reader sees what the writer and the outside process wrote.
        #expect(try Self.sqlite3(path, "select count(*) from utterances") == "12")
        try writer.finishTranscript(transcript, endTime: 99)
        try writer.endSession(session, endTime: 100)
        #expect(reader.changeStamp() != stampBefore, "the change stamp follows every commit")
        #expect(try reader.transcript(tid: "t-1")?.utterances.count == 12)
        writer.close()
        reader.close()

        #expect(try Self.sqlite3(path, "select count(*) from utterances") == "12")
        #expect(try Self.sqlite3(path, "select end_time from transcripts where tid = 't-1'") == "99")
        #expect(try Self.sqlite3(path, "pragma integrity_check") == "ok")
    }

    @Test("opening a reader does not touch the file outside SQLite: a writer opened after it keeps every commit too")
    func readerFirstThenWriter() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("t.sqlite")
        try SQLiteTranscriptStore(path: path).close()
        // `serve --run`: the API's reader opens first, then the pipeline's store node opens the writer.
        let reader = try SQLiteTranscriptStore(readingFrom: path)
        defer { reader.close() }
        let writer = try SQLiteTranscriptStore(path: path)
        defer { writer.close() }
        let session = try writer.createSession(NewSession(sessionID: "call", startTime: 1))
        _ = try Self.sqlite3(path, "select count(*) from sessions")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        for index in 0..<5 {
            _ = try writer.createSession(NewSession(sessionID: "call-\(index)", startTime: 2 + Int64(index)))
        }
        try writer.endSession(session, endTime: 9)
        #expect(try reader.sessions(after: nil, limit: 100, transcribedOnly: false).count == 6)
        writer.close()
        reader.close()
        #expect(try Self.sqlite3(path, "select count(*) from sessions where end_time = 9") == "1")
        #expect(try Self.sqlite3(path, "select count(*) from sessions") == "6")
    }

    @Test("a file that is not SQLite is still refused (malformedData naming it) and left exactly as it was")
    func notSQLiteStillRefused() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("notes.sqlite")
        let bytes = Data("these are my notes, not a database\n".utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        #expect(throws: TranscriptsError.malformedData("\(path) is not a SQLite database (file is not a database)")) {
            try SQLiteTranscriptStore(readingFrom: path)
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
    }
}
