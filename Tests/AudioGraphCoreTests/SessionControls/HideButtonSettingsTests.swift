import AudioGraphCore
import AudioGraphTestKit
import Testing

/// Issue 17, item 1: `session.hideTranscriptionButton` and `session.hideClosedCaptionButton` exist in the config
/// and in `SessionSettings`, default true (as in the calls SDK) and are validated like the other session settings.
@Suite struct HideButtonSettingsTests {
    let pair = #""src": {"type": "test-tone"}, "out": {"type": "test-recorder"}"#

    @Test func bothControlsAreHiddenByDefault() throws {
        let graph = try buildGraph(config(pair, links: #""src -> out""#))
        #expect(graph.session.hideTranscriptionButton)
        #expect(graph.session.hideClosedCaptionButton)
        #expect(SessionSettings().hideTranscriptionButton && SessionSettings().hideClosedCaptionButton)
    }

    @Test func theConfigShowsEitherControl() throws {
        let shown = try buildGraph(config(pair, links: #""src -> out""#,
            extra: #""session": {"hideTranscriptionButton": false, "hideClosedCaptionButton": false},"#))
        #expect(shown.session == SessionSettings(hideTranscriptionButton: false, hideClosedCaptionButton: false))
        let one = try buildGraph(config(pair, links: #""src -> out""#, extra: #""session": {"hideClosedCaptionButton": false},"#))
        #expect(one.session.hideTranscriptionButton && !one.session.hideClosedCaptionButton)
        let overridden = try buildGraph(config(pair, links: #""src -> out""#), overrides: ["session.hideTranscriptionButton=false"])
        #expect(!overridden.session.hideTranscriptionButton)
    }

    @Test func badValuesNameTheirPath() {
        let error = buildError(config(pair, links: #""src -> out""#, extra: #""session": {"hideTranscriptionButton": "no"},"#))
        #expect(error?.code == .invalidConfig)
        #expect(error?.location == "session.hideTranscriptionButton")
        #expect(error?.message.contains("expected true or false") == true, "\(String(describing: error))")
        let typo = buildError(config(pair, links: #""src -> out""#, extra: #""session": {"hideCaptionButton": false},"#))
        #expect(typo?.location == "session.hideCaptionButton")
        #expect(typo?.message.contains("hideClosedCaptionButton") == true, "\(String(describing: typo))")
    }

    @Test func theSchemaListsThem() {
        let schema = JSONWriter.compact(ConfigSchema.make(testRegistry()))
        #expect(schema.contains(#""hideTranscriptionButton":{"type":"boolean","default":true}"#), "\(schema)")
        #expect(schema.contains(#""hideClosedCaptionButton":{"type":"boolean","default":true}"#))
    }
}
