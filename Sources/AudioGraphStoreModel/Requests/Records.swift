import Foundation

/// One transcript, with the field names users know from captioning SDKs (DESIGN.md section 5).
///
/// Sparse records are normal: a missing string is `""`, a missing number `0`. `metaData` is the raw row the
/// record was read from (column name to value), for whatever the named fields leave out.
public struct TranscriptRecord: Sendable, Equatable, Codable {
    /// The transcript id.
    public var tid: String
    /// The session id.
    public var mid: String
    public var roomName: String
    /// Epoch seconds: when the transcription run started.
    public var startTime: Int64
    /// Epoch seconds: its last final utterance, or when it stopped.
    public var endTime: Int64
    /// The session's media, when known.
    public var url: String
    /// ISO 8601 (UTC) date of `startTime`.
    public var transcriptDate: String
    /// Where the transcript's JSON document is (`file://…/transcripts/<tid>.json` for the SQLite store).
    public var transcriptUrl: String
    /// The raw row.
    public var metaData: [String: StoreValue]

    public init(tid: String, mid: String = "", roomName: String = "", startTime: Int64 = 0, endTime: Int64 = 0,
                url: String = "", transcriptDate: String = "", transcriptUrl: String = "",
                metaData: [String: StoreValue] = [:]) {
        self.tid = tid
        self.mid = mid
        self.roomName = roomName
        self.startTime = startTime
        self.endTime = endTime
        self.url = url
        self.transcriptDate = transcriptDate
        self.transcriptUrl = transcriptUrl
        self.metaData = metaData
    }

    /// Reads a raw transcript row. Fails (`malformedData`) when the row has no usable `tid` or a field holds a
    /// value of the wrong kind (a time that is not a number, a blob where text belongs); missing and null
    /// fields are `""` and `0`.
    public init(row: StoreRow) throws(TranscriptsError) {
        let reader = RowReader(row: row)
        let tid = try reader.string(StoreColumn.tid)
        guard !tid.isEmpty else { throw .malformedData("row \(row.key): no tid") }
        self.init(tid: tid, mid: try reader.string(StoreColumn.sessionID), roomName: try reader.string(StoreColumn.roomName),
                  startTime: try reader.number(StoreColumn.startTime), endTime: try reader.number(StoreColumn.endTime),
                  url: try reader.string(StoreColumn.url), transcriptDate: try reader.string(StoreColumn.transcriptDate),
                  transcriptUrl: try reader.string(StoreColumn.transcriptURL), metaData: row.values)
    }
}

/// One session (a run), page by page from `CallLogsRequest`.
public struct CallLogRecord: Sendable, Equatable, Codable {
    /// The session id.
    public var mid: String
    public var roomName: String
    /// Epoch seconds.
    public var startTime: Int64
    /// Epoch seconds; 0 while the run goes on (or when it never ended cleanly).
    public var endTime: Int64
    public var url: String
    /// Whether the session had transcription.
    public var hasTranscriptions: Bool
    /// Its transcripts, when the request filtered on `hasTranscriptions(true)`; else empty.
    public var transcripts: [TranscriptRecord]
    /// The raw row.
    public var metaData: [String: StoreValue]

    public init(mid: String, roomName: String = "", startTime: Int64 = 0, endTime: Int64 = 0, url: String = "",
                hasTranscriptions: Bool = false, transcripts: [TranscriptRecord] = [], metaData: [String: StoreValue] = [:]) {
        self.mid = mid
        self.roomName = roomName
        self.startTime = startTime
        self.endTime = endTime
        self.url = url
        self.hasTranscriptions = hasTranscriptions
        self.transcripts = transcripts
        self.metaData = metaData
    }

    /// Reads a raw session row (same rules as `TranscriptRecord.init(row:)`; `session_id` must be there).
    public init(row: StoreRow) throws(TranscriptsError) {
        let reader = RowReader(row: row)
        let mid = try reader.string(StoreColumn.sessionID)
        guard !mid.isEmpty else { throw .malformedData("session row \(row.key): no session id") }
        self.init(mid: mid, roomName: try reader.string(StoreColumn.roomName), startTime: try reader.number(StoreColumn.startTime),
                  endTime: try reader.number(StoreColumn.endTime), url: try reader.string(StoreColumn.url),
                  hasTranscriptions: try reader.number(StoreColumn.hasTranscription) != 0, metaData: row.values)
    }
}

extension CallLogRecord {
    /// Call records from session rows (a row that does not parse is skipped), each with the transcripts among
    /// `transcriptRows` that belong to its session row, in order, passed through `transform`.
    public static func records(sessions rows: [StoreRow], transcripts transcriptRows: [StoreRow] = [],
                               transform: (TranscriptRecord) -> TranscriptRecord = { $0 }) -> [CallLogRecord] {
        var bySession: [Int64: [TranscriptRecord]] = [:]
        for row in transcriptRows {
            guard case .integer(let session)? = row[StoreColumn.sessionRow], let record = try? TranscriptRecord(row: row) else {
                continue
            }
            bySession[session, default: []].append(transform(record))
        }
        return rows.compactMap { row in
            guard var call = try? CallLogRecord(row: row) else { return nil }
            call.transcripts = bySession[row.key] ?? []
            return call
        }
    }
}

/// A transcript with its utterances (`audiograph transcripts show`). Encodes flat: the record's fields, then
/// `language` and `utterances`.
public struct TranscriptDetail: Sendable, Equatable, Codable {
    public var record: TranscriptRecord
    public var language: String
    public var utterances: [StoredUtterance]

    public init(record: TranscriptRecord, language: String, utterances: [StoredUtterance]) {
        self.record = record
        self.language = language
        self.utterances = utterances
    }

    private enum CodingKeys: String, CodingKey {
        case language, utterances
    }

    public init(from decoder: any Decoder) throws {
        record = try TranscriptRecord(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        language = try container.decodeIfPresent(String.self, forKey: .language) ?? ""
        utterances = try container.decodeIfPresent([StoredUtterance].self, forKey: .utterances) ?? []
    }

    public func encode(to encoder: any Encoder) throws {
        try record.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(language, forKey: .language)
        try container.encode(utterances, forKey: .utterances)
    }
}

extension TranscriptStore {
    /// One transcript with its utterances, or nil when there is no transcript `tid`; `malformedData` when its
    /// row does not parse.
    public func detail(tid: String) throws(TranscriptsError) -> TranscriptDetail? {
        guard let found = try transcript(tid: tid) else { return nil }
        let record = try TranscriptRecord(row: found.row)
        let language: String = if case .text(let text)? = found.row[StoreColumn.language] { text } else { "" }
        return TranscriptDetail(record: record, language: language, utterances: found.utterances)
    }
}

/// Lenient typed access to a raw row: null or missing is the empty value; a value of the wrong kind throws.
struct RowReader {
    let row: StoreRow

    func string(_ column: String) throws(TranscriptsError) -> String {
        switch row[column] ?? .null {
        case .null: return ""
        case .text(let text): return text
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        }
    }

    func number(_ column: String) throws(TranscriptsError) -> Int64 {
        switch row[column] ?? .null {
        case .null: return 0
        case .integer(let value): return value
        case .real(let value):
            guard value.isFinite, abs(value) < 9e18 else { throw bad(column, value) }
            return Int64(value.rounded(.down))
        case .text(let text):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            if trimmed.isEmpty { return 0 }
            if let value = Int64(trimmed) { return value }
            if let value = Double(trimmed), value.isFinite, abs(value) < 9e18 { return Int64(value.rounded(.down)) }
            throw bad(column, text)
        }
    }

    private func bad(_ column: String, _ value: Any) -> TranscriptsError {
        .malformedData("row \(row.key): \(column) is not a number (\(value))")
    }
}
