import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphSpeech

// Live captions: the exact bytes for a terminal and for plain output, revisions, hide/show and stop.

private final class Capture {
    var writes: [String] = []
    var text: String { writes.joined() }
}

private let clear = "\r\u{1B}[2K"

private func partial(_ segment: Int, _ revision: Int, _ text: String) -> TranscriptUpdate {
    TranscriptUpdate(segment: segment, revision: revision, isFinal: false, start: Double(segment), end: Double(segment) + 0.5,
                     text: text)
}

private func final(_ segment: Int, _ text: String, start: Double, end: Double) -> TranscriptUpdate {
    TranscriptUpdate(segment: segment, revision: 9, isFinal: true, start: start, end: end, text: text)
}

/// One session's results and commands, the same for every style.
private enum Step {
    case update(TranscriptUpdate)
    case command(ControlCommand)
}

private let longPartial = "this partial result is far too long to fit on one terminal line of forty columns"

private let script: [Step] = [
    .update(partial(1, 1, "go")),
    .update(partial(1, 2, "go forward")),
    .update(partial(1, 1, "go")),  // stale revision
    .update(final(1, "go forward ten meters", start: 0.52, end: 2.9)),
    .update(partial(1, 10, "go forward ten")),  // segment already final
    .update(final(1, "DUPLICATE", start: 0.52, end: 2.9)),
    .update(partial(2, 1, "then")),
    .command(.hideCaptions),
    .update(partial(2, 2, "then turn")),
    .update(final(2, "then turn left", start: 3.5, end: 5)),
    .command(.showCaptions),
    .update(partial(3, 1, longPartial)),
    .command(.stopTranscription),
    .command(.startTranscription),
    .update(partial(5, 1, "x y")),
    .update(final(4, "a b", start: 61.5, end: 3725.25)),  // an older segment's final under a newer partial
    .update(partial(5, 2, "x y z")),
]

private let terminalExpected: [String] = [
    clear + "go",
    clear + "go forward",
    clear + "[00:00.52 → 00:02.90] go forward ten meters\n",
    clear + "then",
    clear,  // hide
    clear + "…" + String(longPartial.suffix(38)),
    clear,  // stop transcription
    clear + "x y",
    clear + "[01:01.50 → 1:02:05.25] a b\n" + "x y",
    clear + "x y z",
    clear,  // finish
]

private let plainExpected: [String] = [
    "[00:00.52 → 00:02.90] go forward ten meters\n",
    "[01:01.50 → 1:02:05.25] a b\n",
]

@Suite(.ownThreads) struct CaptionLiveTests {
    private func run(_ style: LiveCaptionRenderer.Style) -> [String] {
        let capture = Capture()
        let renderer = LiveCaptionRenderer(style: style) { capture.writes.append($0) }
        for step in script {
            switch step {
            case .update(let update): renderer.receive(update)
            case .command(.hideCaptions): renderer.hide()
            case .command(.showCaptions): renderer.show()
            case .command(.stopTranscription): renderer.clear()
            case .command: break
            }
        }
        renderer.finish()
        renderer.finish()
        return capture.writes
    }

    @Test("terminal: the partial line is rewritten in place, finals are committed above it")
    func terminal() {
        #expect(run(.terminal(columns: 40)) == terminalExpected)
    }

    @Test("terminal: a Chinese partial is cut to the terminal's columns (a Hanzi takes two), keeping its end")
    func widePartialFitsTheTerminal() {
        let capture = Capture()
        let renderer = LiveCaptionRenderer(style: .terminal(columns: 22)) { capture.writes.append($0) }
        renderer.receive(partial(0, 1, "今天天气很好。你能在午饭前把报告发给我吗？我们明天再见"))
        let drawn = String(capture.text.dropFirst(clear.count))
        #expect(drawn == "…给我吗？我们明天再见", "\(capture.writes)")
        #expect(TerminalWidth.columns(drawn) <= 21)
    }

    @Test("plain: finals only, one line each after their time range")
    func plain() {
        #expect(run(.plain) == plainExpected)
    }

    @Test("caption-sink live mode renders through the renderer and obeys control commands", arguments: [true, false])
    func throughTheNode(terminal: Bool) throws {
        let capture = Capture()
        let values = try ParameterValidation.validate(["format": "live", "stream": "stderr"], against: CaptionSinkNode.descriptor,
                                                      at: .root / "nodes" / "live")
        let configuration = NodeConfiguration(id: "live", type: "caption-sink", values: values)
        let style: LiveCaptionRenderer.Style = terminal ? .terminal(columns: 40) : .plain
        let node = try CaptionSinkNode(configuration: configuration, live: (style, { capture.writes.append($0) }))
        let sink = try NodeHarness(node, id: "live", input: nil)
        try sink.push(Event(node: "level", time: 0, payload: .level(LevelReading(level: 0.1, rmsDb: [-50], peakDb: [-40]))))
        for step in script {
            switch step {
            case .update(let update): try sink.push(CaptionTestSupport.transcript(update))
            case .command(let command): try sink.push(command)
            }
        }
        try sink.finish()
        #expect(capture.writes == (terminal ? terminalExpected : plainExpected))
        #expect(sink.output.isEmpty)
    }
}
