import AudioGraphCore
import AudioGraphSessions
import AudioGraphTestKit
import Testing

/// Issue 17, item 1: which controls a session shows follows `hideTranscriptionButton` / `hideClosedCaptionButton`,
/// a hidden one is refused with the stable code `control_hidden`, and the terminal's key help names the live keys.
@Suite(.ownThreads) struct SessionControlsTests {
    @Test func defaultsHideBothControls() {
        let controls = SessionControls(settings: SessionSettings())
        #expect(SessionControlKind.allCases.allSatisfy { !controls.isShown($0) })
        #expect(throws: SessionControlHidden(control: .transcription)) { try controls.check(.transcription) }
        #expect(throws: SessionControlHidden(control: .language)) { try controls.check(.language) }
        #expect(SessionControlHidden(control: .captions).code == "control_hidden")
        #expect(controls.terminalKeyHelp
            == "keys: q stop (t off: session.hideTranscriptionButton is true; c off: session.hideClosedCaptionButton is true)")
    }

    @Test func eachSettingShowsItsOwnControl() throws {
        let transcription = SessionControls(settings: SessionSettings(hideTranscriptionButton: false))
        try transcription.check(.transcription)
        #expect(!transcription.isShown(.captions) && !transcription.isShown(.language))
        #expect(transcription.terminalKeyHelp == "keys: t transcription, q stop (c off: session.hideClosedCaptionButton is true)")
        let captions = SessionControls(settings: SessionSettings(hideClosedCaptionButton: false))
        try captions.check(.captions)
        try captions.check(.language)
        #expect(!captions.isShown(.transcription))
        let both = SessionControls(settings: SessionSettings(hideTranscriptionButton: false, hideClosedCaptionButton: false))
        #expect(both.terminalKeyHelp == "keys: t transcription, c captions, q stop")
    }
}
