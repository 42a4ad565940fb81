import AudioGraphCore

/// `caption-sink`: captions from a recognizer's transcript events, live on a terminal or into an SRT, WebVTT
/// or JSON file.
///
/// - Files take final results only (partials may still change; a second final for a segment is ignored).
///   Cues follow `CueBuilder`'s rules. Each cue (JSON: each utterance) is written with one system call as it
///   comes, and the file is valid after every write: an SRT or WebVTT file holds whole cues, the JSON file
///   its closing `]}` (each utterance is written over it and the closing after it). The file is made only
///   once every node of the run started (`openOutputs`), so a run that cannot start (a model that does not
///   load) leaves an existing file as it was. It is synced and closed at end of stream, on SIGINT and when
///   another node fails.
/// - `live` hands results to a `LiveCaptionRenderer` on stdout or stderr (through `TerminalScreen.shared`,
///   the process's one terminal writer): on a terminal the partial line is rewritten in place and finals
///   scroll up; otherwise finals only, as plain lines. With
///   `audiograph run --events jsonl`, which prints events on stdout, set `"stream": "stderr"`.
/// - Control: live captions show only while transcription runs and captions are on: `hideCaptions` and
///   `stopTranscription` clear the partial line at their place in the stream (results from before them are
///   drawn first, like the final a stop ends the utterance with) and show nothing after them until both
///   `showCaptions` and `startTranscription` hold again; `setLanguage` sets the language of later
///   utterances that name none. Files record every final result whether captions are shown or not. A live sink
///   starts showing captions: the session layer sends `hideCaptions` / `stopTranscription` at the start when
///   the session has captions or transcription off.
/// - The language of an utterance is the result's own, else the session's `captionLanguage`; the JSON
///   document also records the session id.
public final class CaptionSinkNode: AudioNode {
    public enum Format: String, CaseIterable, Sendable {
        case live, srt, webvtt, json, txt

        /// The usual file extension.
        public var fileExtension: String {
            switch self {
            case .live: return ""
            case .srt: return "srt"
            case .webvtt: return "vtt"
            case .json: return "json"
            case .txt: return "txt"
            }
        }
    }

    /// `stream`: where live captions go.
    enum Stream: String, CaseIterable, Sendable {
        case stdout, stderr
    }

    static let format = Parameter.choice(
        "format", default: Format.live,
        doc: "live: the terminal (stdout or stderr); srt, webvtt: subtitle files; json: the "
            + "transcript as one document (utterances with words, times, confidence, language, session id); "
            + "txt: each utterance's text on a line.")
    static let maxLineLength = Parameter.integer(
        "maxLineLength", range: 20...80, default: 42,
        doc: "Columns per caption line (a Hanzi, kana or Hangul syllable counts 2); lines break between words, "
            + "and between characters in Chinese and Japanese (a longer word sits alone on its line).")
    static let maxLines = Parameter.integer("maxLines", range: 1...3, default: 2, doc: "Lines per cue.")
    static let maxCueSeconds = Parameter.number("maxCueSeconds", range: 1...20, default: 7,
                                                doc: "Longest time a cue stays on screen.")
    static let minCueSeconds = Parameter.number(
        "minCueSeconds", range: 0...5, default: 1,
        doc: "Shortest time a cue stays on screen, where the next cue leaves room (at most maxCueSeconds).")
    static let stream = Parameter.choice(
        "stream", default: Stream.stdout,
        doc: "Where live captions go; use stderr with `audiograph run --events jsonl`. Live only.")

    public static let descriptor = NodeDescriptor(
        type: "caption-sink",
        summary: "Shows captions live on the terminal or writes them to an SRT, WebVTT or JSON file. Files take "
            + "final results only and are valid after every cue; live captions rewrite the partial line in place "
            + "on a terminal and print finals as plain lines otherwise.",
        category: .sink,
        parameters: [
            format.spec,
            ParameterSpec("path", .path(.output),
                          doc: "The file to write, for srt, webvtt, json and txt (not live). Its folder is created if missing."),
            maxLineLength.spec,
            maxLines.spec,
            maxCueSeconds.spec,
            minCueSeconds.spec,
            stream.spec,
        ],
        inputs: [.init(requires: [.transcript])],
        outputs: [],
        execution: .queued(capacity: 256))

    public let format: Format
    /// The output file (nil for live).
    public let path: String?
    public let rules: CueRules
    private let configuration: NodeConfiguration
    private var language: String
    private var builder: CueBuilder
    private var document: (any CaptionDocumentWriter)?
    private var file: TrailerAppendFile?
    private var renderer: LiveCaptionRenderer?
    private var finalSegments = Set<SpeakerSegment>()
    private let liveOverride: (style: LiveCaptionRenderer.Style, write: (String) -> Void)?

    public convenience init(configuration: NodeConfiguration) throws {
        try self.init(configuration: configuration, live: nil)
    }

    /// `live`: where live captions go instead of the configured stream, and in which style (tests).
    init(configuration: NodeConfiguration, live: (style: LiveCaptionRenderer.Style, write: (String) -> Void)?) throws {
        self.configuration = configuration
        liveOverride = live
        format = configuration[Self.format]
        let path = configuration.path("path")
        switch format {
        case .live:
            if let raw = configuration.string("path") {
                let ext = raw.split(separator: ".").count > 1 ? String(raw.split(separator: ".").last!).lowercased() : ""
                let hint = Format.allCases.first { $0 != .live && $0.fileExtension == ext }
                    .map { "set \"format\": \"\($0.rawValue)\" to write \(raw)" } ?? "set \"format\" to srt, webvtt or json to write a file"
                throw configuration.error("live captions go to the terminal; remove path, or \(hint)", parameter: "path")
            }
        case .srt, .webvtt, .json, .txt:
            guard path != nil else {
                throw configuration.error("format \(format.rawValue) writes a file: set \"path\" "
                    + "(for example \"out/captions.\(format.fileExtension)\")", parameter: "path")
            }
        }
        self.path = path
        let maxCue = configuration[Self.maxCueSeconds]
        let minCue = configuration[Self.minCueSeconds]
        if minCue > maxCue {
            throw configuration.error("minCueSeconds (\(minCue)) is longer than maxCueSeconds (\(maxCue))",
                                      parameter: "minCueSeconds")
        }
        rules = CueRules(maxLineLength: configuration[Self.maxLineLength], maxLines: configuration[Self.maxLines],
                         maxCueSeconds: maxCue, minCueSeconds: minCue)
        builder = CueBuilder(rules: rules)
        language = configuration.session.captionLanguage
    }

    public func outputFormat(for input: AudioFormat?) throws -> AudioFormat? { nil }

    public func start(_ context: NodeContext) throws {
        switch format {
        case .live:
            if let liveOverride {
                renderer = LiveCaptionRenderer(style: liveOverride.style, write: liveOverride.write)
            } else {
                let stream: TerminalScreen.Stream = configuration[Self.stream] == .stderr ? .standardError : .standardOutput
                renderer = LiveCaptionRenderer(screen: .shared, stream: stream)
            }
        case .srt, .webvtt, .json, .txt:
            // Checked now, made in `openOutputs` once every node started: a run that cannot start leaves the file as it was.
            if let path { try OutputPaths.checkCreatable(path, node: configuration.id) }
        }
    }

    /// Creates (or truncates) the file and writes its header.
    public func openOutputs(_ context: NodeContext) throws {
        let writer: any CaptionDocumentWriter
        switch format {
        case .live: return
        case .srt: writer = SRTWriter()
        case .webvtt: writer = WebVTTWriter()
        case .json: writer = TranscriptJSONWriter(session: configuration.session.id, language: language)
        case .txt: writer = PlainTextWriter()
        }
        guard let path else { return }
        file = try CaptionFile.create(path: path, header: writer.header, trailer: writer.trailer, node: configuration.id)
        document = writer
    }

    /// Audio is not captioned (a recognizer makes the transcript).
    public func process(_ buffer: AudioBuffer, _ context: NodeContext) throws {}

    public func handle(_ event: Event, _ context: NodeContext) throws {
        guard case .transcript(let update) = event.payload else { return }
        if let renderer {
            renderer.receive(update)
            return
        }
        guard update.isFinal, let file, file.isOpen, finalSegments.insert(SpeakerSegment(update)).inserted else { return }
        let utterance = CaptionUtterance(update, language: language)
        guard !utterance.text.allSatisfy(\.isWhitespace) || !utterance.words.isEmpty else { return }
        let cues = builder.cues(for: update)
        for chunk in document!.chunks(for: utterance, cues: cues) {
            do {
                try file.append(chunk)
            } catch {
                file.close()
                throw error
            }
        }
    }

    public func handle(_ command: ControlCommand, _ context: NodeContext) throws {
        switch command {
        case .hideCaptions: captionsOn = false
        case .showCaptions: captionsOn = true
        case .stopTranscription: transcribing = false
        case .startTranscription: transcribing = true
        case .setLanguage(let code): language = code
        case .flush, .custom: break
        }
        // Captions show only while transcription runs and captions are on. Commands come in their place in the
        // stream, so everything before a stop was drawn already and nothing after it is.
        if captionsOn && transcribing { renderer?.show() } else { renderer?.hide() }
    }

    private var captionsOn = true
    private var transcribing = true

    public func finish(_ context: NodeContext) throws {
        renderer?.finish()
        try file?.finalize()
    }

    public func stop() {
        renderer?.finish()
        try? file?.finalize()
    }
}

extension CaptionSinkNode: TerminalWriter {
    /// Live captions draw on the terminal; file formats do not.
    public var writesToTerminal: Bool { format == .live }
}

extension CaptionSinkNode: CaptionRole {}
