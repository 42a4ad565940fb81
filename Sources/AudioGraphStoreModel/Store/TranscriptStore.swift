import AudioGraphCore
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where transcripts are kept: sessions (one row per run), transcripts (one per transcription run of a
/// session) and their utterances. `SQLiteTranscriptStore` is the embedded default; `PostgresTranscriptStore` (a
/// server database, for several machines) conforms to the same protocol, like swift-log's `LogHandler`.
/// `TranscriptStores.open(location:create:)` picks one by location: a `postgres://` URL or a SQLite path.
///
/// The protocol is small and synchronous: the `transcript-store` node calls it from its own worker thread, and
/// `TranscriptsRequest` / `CallLogsRequest` call it off the caller's task (on a dispatch queue), so an
/// implementation may block on disk or network. It must be safe to call from several threads.
///
/// **Rows.** Page queries return raw `StoreRow`s (what records carry as `metaData`), with these column names
/// (`StoreColumn`): transcripts have `id`, `tid`, `session_row`, `session_id`, `room_name`, `url`, `language`,
/// `start_time`, `end_time`, `transcript_date`, `transcript_url`; sessions have `id`, `session_id`,
/// `room_name`, `url`, `start_time`, `end_time`, `has_transcription`. Times are epoch seconds. A row's `key`
/// orders pages: it only grows as rows are added, and page queries return rows with `key > after`, ascending —
/// keyset pagination, so the cost of a page does not depend on how far into the list it is.
public protocol TranscriptStore: AnyObject, Sendable {
    // MARK: Writing (the transcript-store node)

    /// Adds a session row (one per run) and returns its key.
    func createSession(_ session: NewSession) throws(TranscriptsError) -> Int64
    /// Opens a transcript of the session `sessionKey` and marks the session as transcribed; returns its key.
    func beginTranscript(_ transcript: NewTranscript) throws(TranscriptsError) -> Int64
    /// Adds a final utterance to a transcript and moves the transcript's end time to `time`, atomically.
    func appendUtterance(_ utterance: StoredUtterance, transcript: Int64, time: Int64) throws(TranscriptsError)
    /// Sets a transcript's end time (its transcription run stopped).
    func finishTranscript(_ transcript: Int64, endTime: Int64) throws(TranscriptsError)
    /// Sets a session's end time (the run ended).
    func endSession(_ session: Int64, endTime: Int64) throws(TranscriptsError)
    /// Removes the session rows tagged with batch work item `workItem` (`NewSession.workItem`) — what that
    /// item's runs wrote — with their participants, transcripts and utterances, in one transaction, and returns
    /// how many session rows went. Rows of other runs are left alone, also those under the same session id. A
    /// batch worker calls it before running a file again, so a retried file's half-written transcript is
    /// replaced, not duplicated. (Files a store keeps beside it, like `TranscriptFile`s, are left alone.)
    @discardableResult
    func removeSessions(workItem: String) throws(TranscriptsError) -> Int

    // MARK: Reading

    /// Up to `limit` transcripts of session id `sessionID` with keys above `after` (nil: from the first),
    /// by key.
    func transcripts(sessionID: String, after: Int64?, limit: Int) throws(TranscriptsError) -> [StoreRow]
    /// Up to `limit` sessions with keys above `after`, by key; only those with transcripts when
    /// `transcribedOnly`.
    func sessions(after: Int64?, limit: Int, transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow]
    /// Every transcript of the sessions with these keys (a page of call logs), by key.
    func transcripts(ofSessions sessionKeys: [Int64]) throws(TranscriptsError) -> [StoreRow]
    /// One transcript's row and its utterances (in the order they were written), or nil when there is no
    /// transcript `tid`.
    func transcript(tid: String) throws(TranscriptsError) -> (row: StoreRow, utterances: [StoredUtterance])?

    // MARK: Reading for one user (the HTTP API)
    //
    // A session id is not unique, and whoever writes a config chooses it: two users' runs may share one.
    // Access therefore follows the session row (one run) a transcript belongs to and that row's participants,
    // never the id alone.

    /// Whether `user` took part in any run (session row) of session id `sessionID` (`session.participants`).
    func isParticipant(_ user: String, sessionID: String) throws(TranscriptsError) -> Bool
    /// Whether `user` took part in the run with key `sessionRow` (a transcript's `session_row`).
    func isParticipant(_ user: String, sessionRow: Int64) throws(TranscriptsError) -> Bool
    /// Up to `limit` transcripts of session id `sessionID` whose run (session row) `participant` took part in,
    /// with keys above `after` (nil: from the first), `offset` of them skipped first (0 with a keyset
    /// `after`), by key. Transcripts of other runs with the same id are not there.
    func transcripts(sessionID: String, participant: String, after: Int64?, offset: Int,
                     limit: Int) throws(TranscriptsError) -> [StoreRow]
    /// Like `sessions(after:limit:transcribedOnly:)`, only the sessions `participant` took part in; `offset`
    /// rows are skipped first (0 with a keyset `after`).
    func sessions(participant: String, after: Int64?, offset: Int, limit: Int,
                  transcribedOnly: Bool) throws(TranscriptsError) -> [StoreRow]

    /// Closes the store. Later calls throw `storeNotOpened`. Idempotent.
    func close()
}

/// A session row to add.
public struct NewSession: Sendable, Equatable {
    /// The session id (`mid`): the config's `session.id`, or one generated per run.
    public var sessionID: String
    public var roomName: String
    /// Where the session's media is, when known (the record's `url`).
    public var url: String
    /// Epoch seconds.
    public var startTime: Int64
    /// The users who took part (`session.participants`): who may read the session over the HTTP API.
    public var participants: [String]
    /// The batch work item whose run this is (`SessionSettings.workItem`), nil for other runs: what
    /// `removeSessions(workItem:)` removes by.
    public var workItem: String?

    public init(sessionID: String, roomName: String = "", url: String = "", startTime: Int64, participants: [String] = [],
                workItem: String? = nil) {
        self.sessionID = sessionID
        self.roomName = roomName
        self.url = url
        self.startTime = startTime
        self.participants = participants
        self.workItem = workItem
    }
}

/// A transcript row to add.
public struct NewTranscript: Sendable, Equatable {
    public var tid: String
    /// The key of its session row.
    public var sessionKey: Int64
    /// The session id (`mid`), kept on the transcript so a session's transcripts are found by id.
    public var sessionID: String
    public var language: String
    /// Epoch seconds; also the end time until utterances move it.
    public var startTime: Int64
    /// ISO 8601 (UTC) date of `startTime`.
    public var transcriptDate: String
    /// Where the transcript's JSON document is.
    public var transcriptURL: String

    public init(tid: String, sessionKey: Int64, sessionID: String, language: String, startTime: Int64,
                transcriptDate: String? = nil, transcriptURL: String) {
        self.tid = tid
        self.sessionKey = sessionKey
        self.sessionID = sessionID
        self.language = language
        self.startTime = startTime
        self.transcriptDate = transcriptDate ?? StoreTime.iso8601(startTime)
        self.transcriptURL = transcriptURL
    }
}

/// A final utterance as the store keeps it (times in seconds of the audio's own stream time).
public struct StoredUtterance: Sendable, Equatable, Codable {
    public struct Word: Sendable, Equatable, Codable {
        public var word: String
        public var start: Double
        public var end: Double

        public init(word: String, start: Double, end: Double) {
            self.word = word
            self.start = start
            self.end = end
        }
    }

    public var segment: Int
    public var start: Double
    public var end: Double
    public var text: String
    public var confidence: Double?
    public var words: [Word]
    public var language: String
    /// Who said it (a call's participant); nil for a single-speaker pipeline.
    public var speaker: String?

    public init(segment: Int, start: Double, end: Double, text: String, confidence: Double? = nil,
                words: [Word] = [], language: String = "", speaker: String? = nil) {
        self.speaker = speaker
        self.segment = segment
        self.start = start
        self.end = end
        self.text = text
        self.confidence = confidence
        self.words = words
        self.language = language
    }

    /// A recognizer's final result as stored; `language` when the result names none.
    public init(_ update: TranscriptUpdate, language: String) {
        self.init(segment: update.segment, start: update.start, end: update.end, text: update.text,
                  confidence: update.confidence.flatMap { $0.isFinite ? $0 : nil },
                  words: update.words.map { Word(word: $0.word, start: $0.start, end: $0.end) },
                  language: update.language ?? language, speaker: update.speaker)
    }

    /// `words` as the JSON array the store and the transcript file keep: `[{"word","start","end"}]`.
    public var wordsJSON: JSONValue {
        .array(words.map { word in
            .object(JSONObject([("word", .string(word.word)), ("start", .number(StoreTime.rounded(word.start))),
                                ("end", .number(StoreTime.rounded(word.end)))]))
        })
    }

    /// Words back from `wordsJSON`'s text; entries that are not word objects are dropped.
    public static func words(fromJSON text: String) -> [Word] {
        guard let value = try? JSONParser.parse(text), let array = value.arrayValue else { return [] }
        return array.compactMap { item in
            guard let object = item.objectValue, let word = object["word"]?.stringValue else { return nil }
            return Word(word: word, start: object["start"]?.doubleValue ?? 0, end: object["end"]?.doubleValue ?? 0)
        }
    }

    /// The utterance in the transcript JSON document.
    public var json: JSONValue {
        var object = JSONObject([("segment", .number(Double(segment))), ("start", .number(StoreTime.rounded(start))),
                                 ("end", .number(StoreTime.rounded(end))), ("text", .string(text))])
        object["confidence"] = confidence.map { .number(($0 * 1000).rounded() / 1000) } ?? .null
        object["language"] = .string(language)
        if let speaker { object["speaker"] = .string(speaker) }
        object["words"] = wordsJSON
        return .object(object)
    }
}

/// A raw row of the store: its page `key` and its columns by name (records carry it as `metaData`).
public struct StoreRow: Sendable, Equatable {
    public var key: Int64
    public var values: [String: StoreValue]

    public init(key: Int64, values: [String: StoreValue]) {
        self.key = key
        self.values = values
    }

    public subscript(column: String) -> StoreValue? { values[column] }
}

/// A column value of a raw row. Encodes as the JSON value itself (`null`, a number or a string).
public enum StoreValue: Sendable, Equatable, Codable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let integer = try? container.decode(Int64.self) {
            self = .integer(integer)
        } else if let real = try? container.decode(Double.self) {
            self = .real(real)
        } else {
            self = .text(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .integer(let value): try container.encode(value)
        case .real(let value): try container.encode(value.isFinite ? value : 0)
        case .text(let value): try container.encode(value)
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .integer(let value): return String(value)
        case .real(let value): return String(value)
        case .text(let value): return value
        }
    }
}

/// The column names of raw rows (see `TranscriptStore`).
public enum StoreColumn {
    public static let id = "id"
    public static let tid = "tid"
    public static let sessionRow = "session_row"
    public static let sessionID = "session_id"
    public static let roomName = "room_name"
    public static let url = "url"
    public static let language = "language"
    public static let startTime = "start_time"
    public static let endTime = "end_time"
    public static let transcriptDate = "transcript_date"
    public static let transcriptURL = "transcript_url"
    public static let hasTranscription = "has_transcription"
}

/// Wall-clock helpers: epoch seconds and their ISO 8601 form.
public enum StoreTime {
    /// Now, in whole epoch seconds.
    public static func now() -> Int64 { Int64(Date().timeIntervalSince1970.rounded(.down)) }

    /// `2026-11-29T10:15:00Z` for epoch seconds.
    public static func iso8601(_ seconds: Int64) -> String {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Seconds rounded to the millisecond, as files and records keep them.
    public static func rounded(_ seconds: Double) -> Double {
        seconds.isFinite ? (seconds * 1000).rounded() / 1000 : 0
    }
}

/// The process-wide default store that requests built without `.store(_:)` read from (swift-log's bootstrap
/// pattern). Tests and embedders inject a store explicitly instead.
public enum TranscriptStores {
    private static let storage = Mutex<(any TranscriptStore)?>(nil)

    /// Sets (or with nil, clears) the default store.
    public static func bootstrap(_ store: (any TranscriptStore)?) {
        storage.withLock { $0 = store }
    }

    /// The default store, if one was bootstrapped.
    public static var current: (any TranscriptStore)? {
        storage.withLock { $0 }
    }
}

/// Where the store lives when no path is given: `$XDG_DATA_HOME/audiograph/transcripts.sqlite` when
/// `XDG_DATA_HOME` is set to an absolute path, else `~/.local/share/audiograph/transcripts.sqlite` (the XDG
/// Base Directory default). Transcript JSON files go in `transcripts/` beside the database.
public enum TranscriptStoreLocation {
    public static let fileName = "transcripts.sqlite"

    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return URL(fileURLWithPath: data).appendingPathComponent("audiograph/\(fileName)").path
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".local/share/audiograph/\(fileName)").path
    }

    /// The folder of a store's transcript JSON files: `transcripts/` beside the database.
    public static func transcriptFolder(forStoreAt path: String) -> String {
        URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("transcripts").path
    }
}
