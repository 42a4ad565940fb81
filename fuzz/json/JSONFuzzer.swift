import AudioGraphCore
import FuzzSupport

/// libFuzzer target `json`: `JSONParser.parse` on any text. It must answer a value or a `SyntaxError` with a
/// position inside the text, never crash; a value it answers must read back the same from `JSONWriter.exact`
/// (every finite number is written exactly), and the compact and pretty forms must parse.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let text = Fuzz.text(data, size)
    let value: JSONValue
    do {
        value = try JSONParser.parse(text)
    } catch {
        let lines = text.utf8.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
        Fuzz.expect(error.line >= 1 && error.line <= lines && error.column >= 1,
                    "syntax error at \(error.line):\(error.column) outside the text's \(lines) lines")
        return 0
    }
    let exact = JSONWriter.exact(value)
    let reread = try? JSONParser.parse(exact)
    if allNumbersFinite(value) {
        Fuzz.expect(reread == value, "JSONWriter.exact does not read back the same: \(exact)")
    } else {
        Fuzz.expect(reread != nil, "JSONWriter.exact wrote what does not parse: \(exact)")
    }
    Fuzz.expect((try? JSONParser.parse(JSONWriter.compact(value))) != nil, "JSONWriter.compact wrote what does not parse")
    Fuzz.expect((try? JSONParser.parse(JSONWriter.pretty(value))) != nil, "JSONWriter.pretty wrote what does not parse")
    return 0
}

/// Whether every number in `value` is finite (`1e999` parses as infinity, which JSON writes as null).
private func allNumbersFinite(_ value: JSONValue) -> Bool {
    switch value {
    case .number(let number): return number.isFinite
    case .array(let items): return items.allSatisfy(allNumbersFinite)
    case .object(let object): return object.entries.allSatisfy { allNumbersFinite($0.value) }
    case .null, .bool, .string: return true
    }
}
