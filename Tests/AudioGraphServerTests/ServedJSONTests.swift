import AudioGraph
import Foundation
import Testing
@testable import AudioGraphServer

/// The API writes its records with the project's `JSONWriter` (`ServedJSON`) instead of Foundation's
/// `JSONEncoder`; these check that the bytes are the ones `JSONEncoder` (`.sortedKeys`, `.withoutEscapingSlashes`)
/// wrote for the records' `Codable` form.
@Suite struct ServedJSONTests {
    static func encoderBytes(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static let awkward: [String: StoreValue] = [
        "id": .integer(42), "tid": .text("t/1 \"quoted\" ünïcødé ✓ \\ back\nslash\ttab"), "session_row": .integer(7),
        "start_time": .integer(1_764_686_400), "end_time": .real(1_764_686_460.25), "confidence": .real(0.30000000000000004),
        "tiny": .real(1e-05), "huge": .real(1e20), "big": .integer(999_999_999_999_999), "negative": .real(-12.5),
        "nan": .real(.nan), "missing": .null, "Upper": .text("A"), "under_score": .text(""), "a1": .integer(-3),
        "transcript_url": .text("http://127.0.0.1:9/v1/transcripts/t%2F1"),
    ]

    static let record = TranscriptRecord(tid: "t/1 \"quoted\" ünïcødé", mid: "standup", roomName: "lab ✓", startTime: 1_764_686_400,
                                         endTime: 1_764_686_460, url: "https://example.com/a?b=c&d=e",
                                         transcriptDate: "2025-12-02T14:40:00Z",
                                         transcriptUrl: "http://127.0.0.1:9/v1/transcripts/t%2F1", metaData: awkward)

    @Test func aRecordIsWhatJSONEncoderWrote() throws {
        #expect(JSONWriter.exact(ServedJSON.record(Self.record)) == (try Self.encoderBytes(Self.record)))
        let empty = TranscriptRecord(tid: "x")
        #expect(JSONWriter.exact(ServedJSON.record(empty)) == (try Self.encoderBytes(empty)))
    }

    @Test func aTranscriptWithUtterancesIsWhatJSONEncoderWrote() throws {
        let utterances = [
            StoredUtterance(segment: 0, start: 0.4, end: 2.35, text: "go forward", confidence: 0.812,
                            words: [.init(word: "go", start: 0.4, end: 0.7), .init(word: "forward", start: 0.75, end: 2.35)],
                            language: "en-US"),
            StoredUtterance(segment: 1, start: 3, end: 4.1, text: "no confidence, no words"),
            StoredUtterance(segment: 2, start: 1e-4, end: 123456.789, text: "", confidence: 1, language: "de-DE"),
        ]
        let detail = TranscriptDetail(record: Self.record, language: "en-US", utterances: utterances)
        #expect(JSONWriter.exact(ServedJSON.detail(detail)) == (try Self.encoderBytes(detail)))
    }

    /// The page shape `TranscriptsAPI` encoded before (`page` written even when nil, the others only if set).
    private struct OldPage: Encodable {
        var sessionId: String?
        var page: Int?
        var limit: Int
        var nextCursor: String?
        var transcripts: [TranscriptRecord]?
        var calls: [CallLogRecord]?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encodeIfPresent(sessionId, forKey: .sessionId)
            try container.encode(page, forKey: .page)
            try container.encode(limit, forKey: .limit)
            try container.encode(nextCursor, forKey: .nextCursor)
            try container.encodeIfPresent(transcripts, forKey: .transcripts)
            try container.encodeIfPresent(calls, forKey: .calls)
        }

        enum CodingKeys: String, CodingKey { case sessionId, page, limit, nextCursor, transcripts, calls }
    }

    @Test func pagesOfTranscriptsAndOfCallsAreWhatJSONEncoderWrote() throws {
        let records = [Self.record, TranscriptRecord(tid: "b", mid: "standup", startTime: 5)]
        let transcripts = ServedJSON.page(sessionId: "standup", page: 2, limit: 30, nextCursor: "42", transcripts: records)
        #expect(JSONWriter.exact(transcripts)
            == (try Self.encoderBytes(OldPage(sessionId: "standup", page: 2, limit: 30, nextCursor: "42", transcripts: records))))
        let empty = ServedJSON.page(sessionId: "standup", page: nil, limit: 1000, nextCursor: nil, transcripts: [])
        #expect(JSONWriter.exact(empty) == (try Self.encoderBytes(OldPage(sessionId: "standup", limit: 1000, transcripts: []))))
        let calls = [CallLogRecord(mid: "standup", roomName: "lab", startTime: 1, endTime: 0, url: "", hasTranscriptions: true,
                                   transcripts: records, metaData: Self.awkward),
                     CallLogRecord(mid: "other")]
        #expect(JSONWriter.exact(ServedJSON.page(sessionId: nil, page: 1, limit: 2, nextCursor: "9", calls: calls))
            == (try Self.encoderBytes(OldPage(page: 1, limit: 2, nextCursor: "9", calls: calls))))
    }

    /// `transcriptUrl` points at this server, the tid percent-encoded when it needs it (and copied when not).
    @Test func transcriptURLsEncodeOnlyTidsThatNeedIt() throws {
        let fixture = try APIFixture()
        try fixture.addSession("plain-Id_1.x~", participants: ["alice"], transcripts: 1)
        try fixture.addSession("team standup ä?#%", participants: ["alice"], transcripts: 1)
        func url(_ session: String) throws -> String? {
            let page = fixture.get("/v1/sessions/\(session)/transcripts", token: fixture.aliceToken)
            return ((jsonObject(page)["transcripts"] as? [[String: Any]])?.first)?["transcriptUrl"] as? String
        }
        #expect(try url("plain-Id_1.x~") == "\(APIFixture.publicURL)/v1/transcripts/plain-Id_1.x~-t0")
        #expect(try url("team standup ä?#%") == "\(APIFixture.publicURL)/v1/transcripts/team%20standup%20%C3%A4%3F%23%25-t0")
    }

    /// Through the API: a stored transcript's answer decodes to the record and re-encodes with JSONEncoder to
    /// the same bytes.
    @Test func theAPIAnswersTheBytesJSONEncoderWouldHave() throws {
        let fixture = try APIFixture()
        try fixture.addSession("standup", participants: ["alice"], transcripts: 3)
        let tid = try #require(fixture.tids["standup"]?.first)
        let answer = fixture.get("/v1/transcripts/\(tid)", token: fixture.aliceToken)
        #expect(answer.status == 200)
        let detail = try JSONDecoder().decode(TranscriptDetail.self, from: Data(answer.text.utf8))
        #expect(detail.utterances.count == 1)
        #expect(answer.text == (try Self.encoderBytes(detail)))
    }
}
