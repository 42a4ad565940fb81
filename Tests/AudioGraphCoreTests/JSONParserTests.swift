import AudioGraphCore
import Testing

@Suite struct JSONParserTests {
    @Test func parsesEveryValueKindAndKeepsKeyOrder() throws {
        let value = try JSONParser.parse(#"{"b": [1, 2.5, -3e2], "a": {"x": true, "y": false, "z": null}, "s": "h\u00e9\n\"q\" \ud83d\ude00"}"#)
        let object = try #require(value.objectValue)
        #expect(object.keys == ["b", "a", "s"])
        #expect(object["b"] == .array([.number(1), .number(2.5), .number(-300)]))
        #expect(object["a"]?.objectValue?.keys == ["x", "y", "z"])
        #expect(object["s"] == .string("hé\n\"q\" 😀"))
    }

    @Test(arguments: [
        ("{\n  \"a\": 1,\n  \"b\": 2,\n}", 4, 1, "expected a key"),
        ("{\"a\": 1 \"b\": 2}", 1, 9, "expected ',' or '}'"),
        ("[1, 2", 1, 6, "unterminated array"),
        ("{\"a\": tru}", 1, 7, "invalid literal"),
        ("{\"a\": 01}", 1, 7, "may not start with 0"),
        ("{\"a\": \"x}", 1, 7, "unterminated string"),
        ("{\"a\": 1, \"a\": 2}", 1, 10, "duplicate key"),
        ("{} x", 1, 4, "after the end"),
        ("", 1, 1, "found the end of the file"),
        ("{\"é\": ?}", 1, 7, "expected a value"),
    ])
    func reportsLineAndColumn(text: String, line: Int, column: Int, message: String) {
        #expect(throws: JSONParser.SyntaxError.self) { try JSONParser.parse(text) }
        do {
            _ = try JSONParser.parse(text)
        } catch {
            #expect(error.line == line)
            #expect(error.column == column)
            #expect(error.message.contains(message), "\(error.message)")
        }
    }

    @Test func writerRoundTrips() throws {
        let text = #"{"type":"level","node":"lv","time":1.2,"level":0.42,"rmsDb":[-23.1],"ok":true,"n":null,"s":"a\"b\\c\u0001"}"#
        let value = try JSONParser.parse(text)
        #expect(JSONWriter.compact(value) == text)
        #expect(try JSONParser.parse(JSONWriter.pretty(value)) == value)
    }

    @Test func numbersPrintWithoutNoise() {
        #expect(JSONWriter.format(number: 3) == "3")
        #expect(JSONWriter.format(number: 0.1 + 0.2) == "0.3")
        #expect(JSONWriter.format(number: -23.1) == "-23.1")
    }
}
