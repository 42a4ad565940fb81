import AudioGraphCore
import FuzzSupport

/// libFuzzer target `plugin`: JSON a plugin hands the host over the C ABI, through `WireFormat`. Mostly node
/// declarations (`descriptor_json`): `WireFormat.descriptor` must answer a descriptor or a `WireFormatError`,
/// never crash; a descriptor it accepts must survive encode → decode unchanged, register, and fill in its
/// parameters' defaults. The same text also goes through the other decoders (events, commands, recognizer
/// capabilities, results and options), which must not crash either.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlugin(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let value = try? WireFormat.parse(Fuzz.text(data, size)) else { return 0 }
    _ = try? WireFormat.event(value)
    _ = try? WireFormat.command(value)
    _ = try? WireFormat.capabilities(value)
    _ = try? WireFormat.recognitionResult(value)
    _ = try? WireFormat.recognizerOptions(value)
    _ = try? WireFormat.configuration(value)
    _ = try? WireFormat.format(value)
    guard let descriptor = try? WireFormat.descriptor(value) else { return 0 }
    let encoded = WireFormat.text(WireFormat.encode(descriptor))
    guard let decoded = try? WireFormat.descriptor(WireFormat.parse(encoded)) else {
        Fuzz.expect(false, "an accepted declaration encodes to one that is refused: \(encoded)")
        return 0
    }
    Fuzz.expect(WireFormat.text(WireFormat.encode(decoded)) == encoded, "a declaration changes on a round trip: \(encoded)")
    var registry = NodeRegistry()
    if (try? registry.register(descriptor: descriptor, origin: "fuzz", make: { _ in throw WireFormatError("not made") })) != nil {
        _ = try? ParameterValidation.validate(JSONObject(), against: descriptor, at: .root / "nodes" / "plugin")
    }
    return 0
}
