import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// The `transcript-store` node driven by the test kit's harness.
@Suite("transcript-store node")
struct TranscriptStoreNodeTests {
    private static let session = SessionSettings(id: "meeting-1", room: "standup", autoStartTranscription: true)

    private func harness(_ folder: TemporaryFolder, session: SessionSettings = Self.session, url: String? = nil)
        throws -> NodeHarness<TranscriptStoreNode> {
        var parameters: JSONObject = ["path": .string(folder.path("db/t.sqlite"))]
        if let url { parameters["url"] = .string(url) }
        return try NodeHarness(type: TranscriptStoreNode.self, id: "store", parameters: parameters, input: nil, session: session)
    }

    private func final(_ segment: Int, _ text: String, at start: Double, language: String? = nil) -> Event {
        let words = text.split(separator: " ").enumerated().map { index, word in
            TranscriptUpdate.Word(word: String(word), start: start + Double(index) * 0.4, end: start + Double(index) * 0.4 + 0.3)
        }
        return Event(node: "asr", time: start, payload: .transcript(TranscriptUpdate(
            segment: segment, revision: 3, isFinal: true, start: start, end: words.last?.end ?? start, text: text,
            confidence: 0.8, words: words, language: language)))
    }

    private func partial(_ segment: Int, _ text: String) -> Event {
        Event(node: "asr", time: 0, payload: .transcript(TranscriptUpdate(segment: segment, revision: 1, isFinal: false,
                                                                          start: 0, end: 1, text: text)))
    }

    /// A second connection, as another process would read.
    private func reader(_ folder: TemporaryFolder) throws -> SQLiteTranscriptStore {
        try SQLiteTranscriptStore(path: folder.path("db/t.sqlite"), create: false)
    }

    /// The session's one transcript, with its utterances.
    private func onlyTranscript(_ store: SQLiteTranscriptStore) throws -> TranscriptDetail {
        let rows = try store.transcripts(sessionID: "meeting-1", after: nil, limit: 10)
        #expect(rows.count == 1)
        let record = try TranscriptRecord(row: try #require(rows.first))
        return try #require(try store.detail(tid: record.tid))
    }

    private func document(_ url: String) throws -> [String: Any] {
        let path = try #require(URL(string: url)).path
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test("a session row at start: the config's id and room, start time now, end time 0 while running")
    func sessionRow() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let before = StoreTime.now()
        let node = try harness(folder, url: "https://media/1.m4a")
        let store = try reader(folder)
        let row = try #require(try store.sessions(after: nil, limit: 10, transcribedOnly: false).first)
        let call = try CallLogRecord(row: row)
        #expect(call.mid == "meeting-1" && call.roomName == "standup" && call.url == "https://media/1.m4a")
        #expect(call.startTime >= before && call.startTime <= StoreTime.now())
        #expect(call.endTime == 0 && !call.hasTranscriptions)
        try node.finish()
        let ended = try CallLogRecord(row: try #require(try store.sessions(after: nil, limit: 10, transcribedOnly: false).first))
        #expect(ended.endTime >= call.startTime)
        #expect(!ended.hasTranscriptions, "no finals, no transcription")
        #expect(try store.transcripts(sessionID: "meeting-1", after: nil, limit: 10).isEmpty)
    }

    @Test("without a session id the run gets one: run-<epoch>-<random>")
    func generatedSessionID() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let node = try harness(folder, session: SessionSettings())
        #expect(node.node.sessionID.wholeMatch(of: /run-\d+-[0-9a-f]{6}/) != nil, "\(node.node.sessionID)")
        node.stop()
        let other = try harness(folder, session: SessionSettings())
        #expect(other.node.sessionID != node.node.sessionID)
        other.stop()
        let rows = try reader(folder).sessions(after: nil, limit: 10, transcribedOnly: false)
        #expect(rows.count == 2, "a session row per run")
    }

    @Test("each final is in the store and the JSON file as soon as it is handled; partials are not")
    func finalsAsTheyArrive() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let node = try harness(folder)
        let store = try reader(folder)
        try node.push(partial(0, "go for"))
        #expect(try store.transcripts(sessionID: "meeting-1", after: nil, limit: 10).isEmpty, "a partial opens nothing")
        let texts = ["go forward ten meters", "turn left", "stop"]
        for (index, text) in texts.enumerated() {
            try node.push(partial(index, "partial"))
            try node.push(final(index, text, at: Double(index) * 3))
            let detail = try onlyTranscript(store)
            #expect(detail.utterances.map(\.text) == Array(texts.prefix(index + 1)))
            let json = try document(detail.record.transcriptUrl)
            let utterances = try #require(json["utterances"] as? [[String: Any]])
            #expect(utterances.map { $0["text"] as? String } == Array(texts.prefix(index + 1)), "valid JSON after every write")
            #expect(json["tid"] as? String == detail.record.tid && json["sessionId"] as? String == "meeting-1")
            #expect(json["language"] as? String == "en-US")
        }
        let detail = try onlyTranscript(store)
        let first = detail.utterances[0]
        #expect(first.segment == 0 && first.start == 0 && abs(first.end - 1.5) < 1e-9 && first.confidence == 0.8)
        #expect(first.words.map(\.word) == ["go", "forward", "ten", "meters"])
        #expect(first.language == "en-US")
        let words = try #require((try document(detail.record.transcriptUrl)["utterances"] as? [[String: Any]])?.first?["words"] as? [[String: Any]])
        #expect(words.first?["word"] as? String == "go" && words.first?["end"] as? Double == 0.3)
        #expect(detail.record.transcriptUrl.hasPrefix("file://" + folder.path("db/transcripts/")))
        #expect(detail.record.transcriptUrl.hasSuffix("/\(detail.record.tid).json"))
        try node.finish()
        let call = try CallLogRecord(row: try #require(try store.sessions(after: nil, limit: 1, transcribedOnly: true).first))
        #expect(call.hasTranscriptions && call.endTime > 0)
    }

    @Test("stopTranscription closes the transcript; the next final opens a new tid; startTranscription sets its start")
    func transcriptionRuns() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let node = try harness(folder)
        let store = try reader(folder)
        try node.push(final(0, "one", at: 0))
        try node.push(final(1, "two", at: 2))
        try node.push(.stopTranscription)
        try node.push(.stopTranscription)  // twice: nothing more
        let afterStop = try store.transcripts(sessionID: "meeting-1", after: nil, limit: 10).map { try TranscriptRecord(row: $0) }
        #expect(afterStop.count == 1)
        #expect(afterStop[0].endTime >= afterStop[0].startTime)
        try node.push(.startTranscription)
        try node.push(final(2, "three", at: 10))
        try node.push(.stopTranscription)
        try node.push(final(3, "four", at: 20))  // a final with no start command still opens a run
        try node.finish()
        let records = try store.transcripts(sessionID: "meeting-1", after: nil, limit: 10).map { try TranscriptRecord(row: $0) }
        #expect(records.count == 3)
        #expect(Set(records.map(\.tid)).count == 3)
        let texts = try records.map { try #require(try store.detail(tid: $0.tid)).utterances.map(\.text) }
        #expect(texts == [["one", "two"], ["three"], ["four"]])
        for record in records {
            let json = try document(record.transcriptUrl)
            #expect((json["utterances"] as? [Any])?.count == (record.tid == records[0].tid ? 2 : 1))
        }
    }

    @Test("times: session start and end, a run's start (graph start, startTranscription, else its first final), end at each final and at stop",
          arguments: [true, false])
    func times(autoStart: Bool) throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let clock = Mutex<Int64>(1000)
        func at(_ time: Int64) { clock.withLock { $0 = time } }
        let path = folder.path("t.sqlite")
        let configuration = NodeConfiguration(id: "store", type: "transcript-store", values: ["path": .string(path)],
                                              session: SessionSettings(id: "m", autoStartTranscription: autoStart))
        let node = try TranscriptStoreNode(configuration: configuration, openStore: { path throws(TranscriptsError) in
            try SQLiteTranscriptStore(path: path)
        }, clock: { clock.withLock { $0 } })
        let harness = try NodeHarness(node, id: "store", input: nil)
        at(1010)
        try harness.push(final(0, "one", at: 0))
        at(1020)
        try harness.push(final(1, "two", at: 1))
        at(1030)
        try harness.push(.stopTranscription)
        at(1040)
        try harness.push(.startTranscription)
        at(1050)
        try harness.push(final(2, "three", at: 2))
        at(1060)
        try harness.push(.stopTranscription)
        at(1070)
        try harness.push(final(3, "four", at: 3))
        at(1080)
        try harness.finish()
        let store = try SQLiteTranscriptStore(path: path, create: false)
        let records = try store.transcripts(sessionID: "m", after: nil, limit: 10).map { try TranscriptRecord(row: $0) }
        #expect(records.map(\.startTime) == [autoStart ? 1000 : 1010, 1040, 1070])
        #expect(records.map(\.endTime) == [1030, 1060, 1080])
        #expect(records[0].transcriptDate == StoreTime.iso8601(records[0].startTime))
        let call = try CallLogRecord(row: try #require(try store.sessions(after: nil, limit: 1, transcribedOnly: false).first))
        #expect(call.startTime == 1000 && call.endTime == 1080)
    }

    @Test("a second final for a segment, and empty finals, are ignored")
    func duplicatesAndEmpty() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let node = try harness(folder)
        try node.push(final(0, "hello", at: 0))
        try node.push(final(0, "hello again", at: 0))
        try node.push(final(1, "  ", at: 1))
        try node.finish()
        let store = try reader(folder)
        let record = try TranscriptRecord(row: try #require(try store.transcripts(sessionID: "meeting-1", after: nil, limit: 10).first))
        #expect(try store.detail(tid: record.tid)?.utterances.map(\.text) == ["hello"])
    }

    @Test("language: the result's own, else setLanguage's, else the session's captionLanguage")
    func languages() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        var session = Self.session
        session.captionLanguage = "fr-FR"
        let node = try harness(folder, session: session)
        try node.push(final(0, "bonjour", at: 0))
        try node.push(final(1, "hallo", at: 1, language: "de-DE"))
        try node.push(.setLanguage("es-ES"))
        try node.push(.stopTranscription)
        try node.push(final(2, "hola", at: 2))
        try node.finish()
        let store = try reader(folder)
        let records = try store.transcripts(sessionID: "meeting-1", after: nil, limit: 10).map { try TranscriptRecord(row: $0) }
        let details = try records.map { try #require(try store.detail(tid: $0.tid)) }
        #expect(details.map(\.language) == ["fr-FR", "es-ES"])
        #expect(details.flatMap(\.utterances).map(\.language) == ["fr-FR", "de-DE", "es-ES"])
        #expect(try document(records[1].transcriptUrl)["language"] as? String == "es-ES")
    }

    @Test("stop is idempotent, after finish and without it; a stopped node ignores late finals")
    func idempotentStop() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let node = try harness(folder)
        try node.push(final(0, "one", at: 0))
        node.stop()
        node.node.stop()
        try node.node.finish(node.context)
        try node.node.handle(final(1, "late", at: 5), node.context)
        let store = try reader(folder)
        let call = try CallLogRecord(row: try #require(try store.sessions(after: nil, limit: 1, transcribedOnly: false).first))
        #expect(call.endTime > 0 && call.hasTranscriptions)
        let record = try TranscriptRecord(row: try #require(try store.transcripts(sessionID: "meeting-1", after: nil, limit: 10).first))
        #expect(try store.detail(tid: record.tid)?.utterances.map(\.text) == ["one"])
        #expect((try document(record.transcriptUrl)["utterances"] as? [Any])?.count == 1)
    }

    @Test("a store that cannot be created is exit 73 naming the path")
    func cannotCreate() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        try "a file".write(toFile: folder.path("blocker"), atomically: true, encoding: .utf8)
        let path = folder.path("blocker/t.sqlite")
        #expect {
            _ = try NodeHarness(type: TranscriptStoreNode.self, id: "store", parameters: ["path": .string(path)], input: nil)
        } throws: { error in
            let error = error as? GraphError
            return error?.code == .cannotCreateOutput && error?.location == path && error?.nodeID == "store"
        }
    }

    @Test("a failed write is exit 74 naming the store; the session still ends")
    func writeFailure() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("t.sqlite")
        let base = try SQLiteTranscriptStore(path: path)
        let store = ControllableStore(base)
        let configuration = NodeConfiguration(id: "store", type: "transcript-store", values: ["path": .string(path)],
                                              session: Self.session)
        let node = try TranscriptStoreNode(configuration: configuration) { _ throws(TranscriptsError) in store }
        let harness = try NodeHarness(node, id: "store", input: nil)
        try harness.push(final(0, "fine", at: 0))
        store.failNextWrite()
        #expect {
            try harness.push(final(1, "lost", at: 1))
        } throws: { error in
            let error = error as? GraphError
            return error?.code == .io && error?.location == path && error?.message.contains("disk full") == true
        }
        harness.stop()
        let reader = try SQLiteTranscriptStore(path: path, create: false)
        let call = try CallLogRecord(row: try #require(try reader.sessions(after: nil, limit: 1, transcribedOnly: false).first))
        #expect(call.endTime > 0)
    }

    @Test("no path: the documented default location")
    func defaultPath() throws {
        let configuration = NodeConfiguration(id: "store", type: "transcript-store", values: JSONObject())
        let node = try TranscriptStoreNode(configuration: configuration)
        #expect(node.path == TranscriptStoreLocation.defaultPath())
        #expect(TranscriptStoreNode.descriptor.parameter(named: "path")?.doc.contains("XDG_DATA_HOME") == true)
    }

    @Test("the declaration: needs transcripts, no outputs, queued")
    func declaration() {
        let descriptor = TranscriptStoreNode.descriptor
        #expect(descriptor.type == "transcript-store")
        #expect(descriptor.inputs.map(\.requires) == [[.transcript]])
        #expect(descriptor.outputs.isEmpty)
        #expect(descriptor.execution == .queued(capacity: 256))
        #expect(NodeRegistry.builtins.entry(for: "transcript-store") != nil)
    }
}
