import AudioGraphCore
import AudioGraphSpeech
import AudioGraphTestKit
import Testing

/// Issue 14, item 10 — "Terminal escapes": a recognizer's text (a plugin engine's, or words from a model's
/// dictionary) reaches the terminal through live captions; control characters in it are shown escaped, so the
/// only escape sequence the renderer writes is its own line clearing.
@Suite(.ownThreads) struct LiveCaptionEscapeTests {
    @Test("live captions escape control characters in partials and finals, on a terminal and in plain lines",
          arguments: [LiveCaptionRenderer.Style.terminal(columns: 80), .plain])
    func escapesText(style: LiveCaptionRenderer.Style) {
        var writes: [String] = []
        let renderer = LiveCaptionRenderer(style: style) { writes.append($0) }
        let hostile = "hi\u{1B}]0;owned\u{07} there\u{1B}[2J\rgone\u{9B}31m"
        renderer.receive(TranscriptUpdate(segment: 1, revision: 1, isFinal: false, start: 0, end: 1, text: hostile))
        renderer.receive(TranscriptUpdate(segment: 1, revision: 2, isFinal: true, start: 0, end: 2, text: hostile))
        renderer.finish()
        let written = writes.joined().replacingOccurrences(of: LiveCaptionRenderer.clearLine, with: "")
        #expect(!written.unicodeScalars.contains { TerminalText.isControl($0) && $0 != "\n" }, "\(writes)")
        #expect(written.contains("hi\\x1B]0;owned\\x07 there\\x1B[2J\\rgone\\x9B31m"), "\(writes)")
    }
}
