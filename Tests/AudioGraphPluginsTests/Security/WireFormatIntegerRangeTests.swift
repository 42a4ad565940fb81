import AudioGraphCore
import Testing

/// Issue 14, "Fuzzing in the project": the `plugin` fuzz target's finding in `WireFormat.descriptor`. An integer
/// parameter's range bound that is not a whole number an Int holds (1e999 parses as infinity; 1e19 is past
/// Int.max) trapped converting it, crashing the host that loaded the plugin; it is a `WireFormatError` now.
@Suite struct WireFormatIntegerRangeTests {
    static func declaration(range: String, kind: String = "integer") -> String {
        #"{"type":"x","summary":"","category":"filter","parameters":[{"name":"n","kind":"\#(kind)","range":\#(range)}],"#
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

    /// The second finding: a number range bound of 1e999 parsed as infinity, which encodes as null, so the
    /// declaration the host keeps was not the one the plugin sent (the round trip changed it).
    @Test(arguments: ["[-96,481E+308]", "[-1e999,0]"])
    func infiniteNumberBoundsAreRefused(range: String) throws {
        let error = #expect(throws: WireFormatError.self) {
            try WireFormat.descriptor(WireFormat.parse(Self.declaration(range: range, kind: "number")))
        }
        #expect(error?.message == "parameter n: a number range must be two finite numbers")
    }

    @Test func finiteNumberBoundsKeepTheirRange() throws {
        let descriptor = try WireFormat.descriptor(WireFormat.parse(Self.declaration(range: "[-96,24.5]", kind: "number")))
        #expect(descriptor.parameters[0].kind == .number(range: -96...24.5))
    }
}
