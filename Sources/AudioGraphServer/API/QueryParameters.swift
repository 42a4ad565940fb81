import AudioGraphStore

/// Reads and checks the API's query values. Every failure is a `bad_parameter` naming the parameter.
struct QueryParameters {
    let request: HTTPRequest

    /// Values longer than this are refused before they are parsed.
    static let maximumLength = 32
    /// Pages past this are refused (a page number is an offset: keep them sane).
    static let maximumPage = 10_000_000

    /// The one value of `name`, nil when absent.
    func value(_ name: String) throws(APIError) -> String? { try single(name) }

    /// `name` as a whole number in `range`, nil when absent.
    func integer(_ name: String, in range: ClosedRange<Int>) throws(APIError) -> Int? {
        guard let value = try integer(name) else { return nil }
        guard value >= Int64(range.lowerBound), value <= Int64(range.upperBound) else {
            throw .badParameter("\(name) must be between \(range.lowerBound) and \(range.upperBound), got \(value)")
        }
        return Int(value)
    }

    private func single(_ name: String) throws(APIError) -> String? {
        let values = request.queryValues(name)
        guard values.count <= 1 else { throw .badParameter("\(name) is given \(values.count) times") }
        guard let value = values.first else { return nil }
        guard value.utf8.count <= Self.maximumLength else {
            throw .badParameter("\(name) is too long (\(value.utf8.count) bytes)")
        }
        return value
    }

    private func integer(_ name: String) throws(APIError) -> Int64? {
        guard let text = try single(name) else { return nil }
        guard let value = Int64(text) else { throw .badParameter("\(name) must be a whole number, got \"\(text)\"") }
        return value
    }

    /// `limit`: default 30, clamped to 1…1000 (like `TranscriptsRequest`).
    func limit() throws(APIError) -> Int {
        guard let value = try integer("limit") else { return TranscriptsRequest.defaultLimit }
        let range = TranscriptsRequest.limitRange
        return Int(min(max(value, Int64(range.lowerBound)), Int64(range.upperBound)))
    }

    /// Where a page starts: `page` (1-based, default 1) or `after` (a cursor), not both.
    func position() throws(APIError) -> PagePosition {
        let page = try integer("page")
        let after = try integer("after")
        if page != nil && after != nil { throw .badParameter("give page or after, not both") }
        if let after { return .after(after) }
        guard let page else { return .page(1) }
        guard page >= 1, page <= Self.maximumPage else {
            throw .badParameter("page must be between 1 and \(Self.maximumPage), got \(page)")
        }
        return .page(Int(page))
    }

    /// `name=true|false`, nil when absent.
    func bool(_ name: String) throws(APIError) -> Bool? {
        guard let text = try single(name) else { return nil }
        switch text {
        case "true", "1": return true
        case "false", "0": return false
        default: throw .badParameter("\(name) must be true or false, got \"\(text)\"")
        }
    }
}

/// Where a page starts.
enum PagePosition: Hashable, Sendable {
    /// 1-based page number.
    case page(Int)
    /// After the row with this key (the previous page's `nextCursor`).
    case after(Int64)

    var pageNumber: Int? {
        if case .page(let number) = self { return number }
        return nil
    }
}
