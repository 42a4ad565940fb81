import AudioGraphCore
import AudioGraphTestKit
import Testing

/// Issue 35: `session.relays` and `session.maxParticipants`, who may send audio into a call and how many at once
/// (docs/calls.md), validated like the other session settings.
@Suite struct CallSessionSettingsTests {
    let pair = #""src": {"type": "test-tone"}, "out": {"type": "test-recorder"}"#

    @Test func defaultsAndValues() throws {
        let plain = try buildGraph(config(pair, links: #""src -> out""#))
        #expect(plain.session.relays.isEmpty)
        #expect(plain.session.maxParticipants == 16)
        let set = try buildGraph(config(pair, links: #""src -> out""#,
            extra: #""session": {"participants": ["alice"], "relays": ["gateway"], "maxParticipants": 3},"#))
        #expect(set.session.relays == ["gateway"])
        #expect(set.session.maxParticipants == 3)
        let access = ParticipantAudioAccess(settings: set.session)
        #expect(access == ParticipantAudioAccess(participants: ["alice"], relays: ["gateway"], maxParticipants: 3))
    }

    @Test(arguments: [
        (#"{"maxParticipants": 0}"#, "session.maxParticipants"), (#"{"maxParticipants": 2.5}"#, "session.maxParticipants"),
        (#"{"relays": "gateway"}"#, "session.relays"), (#"{"relays": [""]}"#, "session.relays[0]"),
    ])
    func badValuesNameTheirPath(session: String, location: String) {
        let error = buildError(config(pair, links: #""src -> out""#, extra: #""session": \#(session),"#))
        #expect(error?.code == .invalidConfig)
        #expect(error?.location == location, "\(String(describing: error))")
    }

    @Test func theSchemaListsThem() {
        let schema = JSONWriter.compact(ConfigSchema.make(testRegistry()))
        #expect(schema.contains(#""relays":{"type":"array""#), "\(schema)")
        #expect(schema.contains(#""maxParticipants":{"type":"integer","minimum":1,"maximum":1000,"default":16"#), "\(schema)")
    }
}
