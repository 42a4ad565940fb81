import AudioGraphCore
import Testing

/// Parameters declared once: the spec the framework reads and the typed read a node makes agree, and a missing
/// value reads as the declared default.
@Suite struct ParameterTests {
    enum Mode: String, CaseIterable, Sendable {
        case auto, on, off
    }

    static let interval = Parameter.integer("intervalMs", range: 10...60_000, default: 100, doc: "Window.")
    static let gain = Parameter.number("gain", range: 0...4, default: 1.5, doc: "Gain.")
    static let live = Parameter.boolean("live", default: false, doc: "Live.")
    static let label = Parameter.string("label", default: "none", doc: "Label.")
    static let mode = Parameter.choice("mode", default: Mode.auto, doc: "Mode.")
    static let language = Parameter.choice("language", among: ["en-US", "de-DE"], default: "en-US", doc: "Language.")
    static let rate = Parameter.integer("sampleRate", range: 1000...384_000, doc: "Rate; leave out to keep.")
    static let device = Parameter.string("device", doc: "Device.")

    private func node(_ values: JSONObject) -> NodeConfiguration {
        NodeConfiguration(id: "n", type: "test", values: values)
    }

    @Test func theSpecCarriesNameKindAndDefault() {
        #expect(Self.interval.spec.name == "intervalMs")
        #expect(Self.interval.spec.kind == .integer(range: 10...60_000))
        #expect(Self.interval.spec.defaultValue == .number(100))
        #expect(Self.gain.spec.defaultValue == .number(1.5) && Self.gain.spec.kind == .number(range: 0...4))
        #expect(Self.live.spec.defaultValue == .bool(false) && Self.live.spec.kind == .boolean)
        #expect(Self.label.spec.defaultValue == .string("none") && Self.label.spec.kind == .string)
        #expect(Self.mode.spec.kind == .choice(["auto", "on", "off"]) && Self.mode.spec.defaultValue == .string("auto"))
        #expect(Self.language.spec.kind == .choice(["en-US", "de-DE"]))
        #expect(Self.rate.spec.defaultValue == nil && !Self.rate.spec.required)
        #expect(Self.device.spec.defaultValue == nil)
        #expect(Self.interval.spec.doc == "Window.")
    }

    @Test func aMissingValueReadsAsTheDeclaredDefault() {
        let empty = node([:])
        #expect(empty[Self.interval] == 100)
        #expect(empty[Self.gain] == 1.5)
        #expect(empty[Self.live] == false)
        #expect(empty[Self.label] == "none")
        #expect(empty[Self.mode] == .auto)
        #expect(empty[Self.language] == "en-US")
        #expect(empty[Self.rate] == nil)
        #expect(empty[Self.device] == nil)
    }

    @Test func aGivenValueIsRead() {
        let given = node(["intervalMs": 250, "gain": 2, "live": true, "label": "x", "mode": "off", "language": "de-DE",
                          "sampleRate": 48000, "device": "mic.monitor"])
        #expect(given[Self.interval] == 250)
        #expect(given[Self.gain] == 2)
        #expect(given[Self.live] == true)
        #expect(given[Self.label] == "x")
        #expect(given[Self.mode] == .off)
        #expect(given[Self.language] == "de-DE")
        #expect(given[Self.rate] == 48000)
        #expect(given[Self.device] == "mic.monitor")
    }

    /// Validation refuses these before a node sees them; a node built without it still gets a declared value.
    @Test func aValueOfTheWrongTypeOrNotAChoiceReadsAsTheDefault() {
        let wrong = node(["intervalMs": 2.5, "live": "yes", "mode": "sometimes", "language": "xx-XX"])
        #expect(wrong[Self.interval] == 100)
        #expect(wrong[Self.live] == false)
        #expect(wrong[Self.mode] == .auto)
        #expect(wrong[Self.language] == "en-US")
    }

    /// The builder fills defaults from the spec: the filled value and the typed read are the same.
    @Test func validationFillsTheSameDefaultTheTypedReadFallsBackOn() throws {
        let specs = [Self.interval.spec, Self.gain.spec, Self.live.spec, Self.label.spec, Self.mode.spec]
        let filled = try ParameterValidation.validate([:], specs: specs, type: "test", at: .root / "nodes" / "n")
        let configured = node(filled)
        #expect(configured[Self.interval] == Self.interval.defaultValue)
        #expect(configured[Self.gain] == Self.gain.defaultValue)
        #expect(configured[Self.mode] == Self.mode.defaultValue)
        #expect(filled["label"] == .string("none"))
    }
}
