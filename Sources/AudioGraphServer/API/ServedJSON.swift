import AudioGraphCore
import AudioGraphStore

/// The API's records as `JSONValue`s for the project's own `JSONWriter` (`JSONWriter.exact`), in the bytes
/// `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` wrote for the records' `Codable` form: keys
/// sorted by code point, numbers in their shortest round-trip form, optionals left out where `Codable` leaves
/// them out. (JSONEncoder took 45 % of a page's CPU; `ServedJSONTests` checks the bytes match.)
///
/// The differences, outside anything the store holds (row ids and epoch seconds are far below 10^15):
/// integers of 10^15 or more are written in exponent form and lose digits past 2^53 (`JSONValue` numbers are
/// `Double`s), and `JSONWriter` escapes DEL and the C1 controls (`\u007f`…`\u009f`) and writes `\b`/`\f`
/// as `\u0008`/`\u000c`, where JSONEncoder wrote them raw or short; both parse to the same strings.
enum ServedJSON {
    /// An object with its keys sorted as `JSONEncoder`'s `.sortedKeys` sorts them.
    static func sorted(_ pairs: [(key: String, value: JSONValue)]) -> JSONValue {
        .object(JSONObject(pairs.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }))
    }

    static func value(_ value: StoreValue) -> JSONValue {
        switch value {
        case .null: .null
        case .integer(let integer): .number(Double(integer))
        case .real(let real): .number(real.isFinite ? real : 0)
        case .text(let text): .string(text)
        }
    }

    static func metaData(_ row: [String: StoreValue]) -> JSONValue {
        sorted(row.map { ($0.key, value($0.value)) })
    }

    static func recordPairs(_ record: TranscriptRecord) -> [(key: String, value: JSONValue)] {
        [("tid", .string(record.tid)), ("mid", .string(record.mid)), ("roomName", .string(record.roomName)),
         ("startTime", .number(Double(record.startTime))), ("endTime", .number(Double(record.endTime))),
         ("url", .string(record.url)), ("transcriptDate", .string(record.transcriptDate)),
         ("transcriptUrl", .string(record.transcriptUrl)), ("metaData", metaData(record.metaData))]
    }

    static func record(_ record: TranscriptRecord) -> JSONValue { sorted(recordPairs(record)) }

    static func utterance(_ utterance: StoredUtterance) -> JSONValue {
        var pairs: [(key: String, value: JSONValue)] = [
            ("segment", .number(Double(utterance.segment))), ("start", .number(utterance.start)),
            ("end", .number(utterance.end)), ("text", .string(utterance.text)), ("language", .string(utterance.language)),
            ("words", .array(utterance.words.map { word in
                sorted([("word", .string(word.word)), ("start", .number(word.start)), ("end", .number(word.end))])
            })),
        ]
        if let confidence = utterance.confidence { pairs.append(("confidence", .number(confidence))) }
        if let speaker = utterance.speaker { pairs.append(("speaker", .string(speaker))) }
        return sorted(pairs)
    }

    /// `GET /v1/transcripts/{tid}`: the record's fields, `language` and `utterances`, in one object.
    static func detail(_ detail: TranscriptDetail) -> JSONValue {
        sorted(recordPairs(detail.record) + [("language", .string(detail.language)),
                                             ("utterances", .array(detail.utterances.map(utterance)))])
    }

    static func call(_ call: CallLogRecord) -> JSONValue {
        sorted([("mid", .string(call.mid)), ("roomName", .string(call.roomName)),
                ("startTime", .number(Double(call.startTime))), ("endTime", .number(Double(call.endTime))),
                ("url", .string(call.url)), ("hasTranscriptions", .bool(call.hasTranscriptions)),
                ("transcripts", .array(call.transcripts.map(record))), ("metaData", metaData(call.metaData))])
    }

    /// A page of transcripts (`sessionId` and `transcripts`) or of calls (`calls`).
    static func page(sessionId: String?, page: Int?, limit: Int, nextCursor: String?,
                     transcripts: [TranscriptRecord]? = nil, calls: [CallLogRecord]? = nil) -> JSONValue {
        var pairs: [(key: String, value: JSONValue)] = [
            ("page", page.map { .number(Double($0)) } ?? .null), ("limit", .number(Double(limit))),
            ("nextCursor", nextCursor.map(JSONValue.string) ?? .null),
        ]
        if let sessionId { pairs.append(("sessionId", .string(sessionId))) }
        if let transcripts { pairs.append(("transcripts", .array(transcripts.map(record)))) }
        if let calls { pairs.append(("calls", .array(calls.map(call)))) }
        return sorted(pairs)
    }

    /// The answer's bytes.
    static func response(_ value: JSONValue) -> HTTPResponse {
        .json(encoded: JSONWriter.bytes(value, exact: true))
    }
}
