import AudioGraphCore
import Testing

/// Issue 14, "Fuzzing in the project": the `plugin` fuzz target's finding in `WireFormat.descriptor`. An integer
/// parameter's range bound that is not a whole number an Int holds (1e999 parses as infinity; 1e19 is past
/// Int.max) trapped converting it, crashing the host that loaded the plugin; it is a `WireFormatError` now.
@Suite struct WireFormatIntegerRangeTests {
    static func declaration(range: String) -> String {
        #"{"type":"x","summary":"","category":"filter","parameters":[{"name":"n","kind":"integer","range":\#(range)}],"#
            + #""inputs":[],"outputs":[]}"#
    }

    @Test(arguments: ["[0,1e999]", "[-1e999,0]", "[1,655900719925474099336]", "[0,9.3e18]", "[0.5,3]", "[0,\"10\"]"])
    func boundsWithoutAnIntAreRefused(range: String) throws {
        let error = #expect(throws: WireFormatError.self) {
            try WireFormat.descriptor(WireFormat.parse(Self.declaration(range: range)))
        }
        #expect(error?.message == "parameter n: an integer range must be two whole numbers below 9e15")
    }

    @Test func wholeNumberBoundsKeepTheirRange() throws {
        let descriptor = try WireFormat.descriptor(WireFormat.parse(Self.declaration(range: "[-5,8999999999999999]")))
        #expect(descriptor.parameters[0].kind == .integer(range: -5...8_999_999_999_999_999))
        let reversed = try WireFormat.descriptor(WireFormat.parse(Self.declaration(range: "[3,1]")))
        #expect(reversed.parameters[0].kind == .integer(range: nil), "a reversed range is still no range, as before")
    }
}
