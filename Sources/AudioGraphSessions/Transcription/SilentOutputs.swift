import AudioGraphCore
import AudioGraphSpeech

/// Nodes that can produce nothing with the session as configured: a recognizer, caption sinks and transcript
/// stores while transcription is off (`session.autoStartTranscription` false), and live caption sinks while
/// captions are off (`session.captions` false). `audiograph run` prints the warning before audio flows, so a
/// run never ends with an empty SRT without saying why.
public struct SilentOutputWarning: Sendable, Equatable, CustomStringConvertible {
    /// The nodes that produce nothing until the fix, in graph order.
    public var nodes: [String]
    /// Whether transcription is off (else only captions are).
    public var transcriptionOff: Bool
    /// The live caption sinks that also need captions on.
    public var liveSinks: [String]
    /// Whether the terminal's t and c keys are shown (`session.hideTranscriptionButton`,
    /// `session.hideClosedCaptionButton` false), so the fix may say "press t".
    public var transcriptionKeyShown = false
    public var captionsKeyShown = false

    /// One line: what is silent, why, and the exact ways to fix it.
    public var description: String {
        var parts: [String] = []
        if transcriptionOff {
            parts.append("transcription is off (session.autoStartTranscription is false), so "
                + Self.list(nodes) + " will produce nothing until it starts: add --set session.autoStartTranscription=true, "
                + (transcriptionKeyShown ? "press t to start it" : "set session.hideTranscriptionButton to false to start it with t")
                + ", or send {\"command\":\"startTranscription\"} with --control")
        }
        if !liveSinks.isEmpty {
            parts.append((transcriptionOff ? "and " : "") + "captions are off (session.captions is false), so live "
                + "captions " + Self.list(liveSinks) + " will show nothing: add --set session.captions=true, "
                + (captionsKeyShown ? "press c" : "set session.hideClosedCaptionButton to false to show them with c")
                + ", or send {\"command\":\"showCaptions\"} with --control")
        }
        return parts.joined(separator: "; ")
    }

    private static func list(_ ids: [String]) -> String {
        (ids.count == 1 ? "node " : "nodes ") + ids.joined(separator: ", ")
    }

    /// The warning for `graph` as its session block starts it; nil when every such node will produce output
    /// (or the graph has no recognizer).
    public static func check(_ graph: Graph) -> SilentOutputWarning? {
        guard graph.nodes.contains(where: { $0.instance is any TranscriberRole }) else { return nil }
        let transcriptionOff = !graph.session.autoStartTranscription
        let silent = transcriptionOff ? graph.nodes.filter { node in
            node.instance is any TranscriberRole || node.instance is any CaptionRole || node.instance is any TranscriptStoreRole
        }.map(\.id) : []
        let live = graph.session.captions ? [] : graph.nodes.filter { node in
            node.instance is any CaptionRole && (node.instance as? any TerminalWriter)?.writesToTerminal == true
        }.map(\.id)
        guard transcriptionOff || !live.isEmpty else { return nil }
        return SilentOutputWarning(nodes: silent, transcriptionOff: transcriptionOff, liveSinks: live,
                                   transcriptionKeyShown: !graph.session.hideTranscriptionButton,
                                   captionsKeyShown: !graph.session.hideClosedCaptionButton)
    }
}

/// After a run: the SRT and WebVTT files that hold no cue, for a line in the summary saying so and why.
public enum EmptyCaptionFiles {
    /// The paths of `graph`'s SRT and WebVTT caption sinks whose files hold no cue.
    public static func find(in graph: Graph) -> [String] {
        graph.instances(of: CaptionSinkNode.self).compactMap { sink in
            guard sink.format == .srt || sink.format == .webvtt, let path = sink.path,
                  CaptionFileCues.count(at: path) == 0 else { return nil }
            return path
        }
    }
}
