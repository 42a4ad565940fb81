import AudioGraph
import Dispatch
import Foundation
import Synchronization

struct RunCommand: Command {
    static let name = "run"
    static let abstract = "Run a pipeline until its sources end (or Ctrl-C)"
    static let usage = "audiograph run CONFIG|-|-e PIPELINE [--set NODE.PARAM=VALUE]... [--events jsonl] [--stats [json]] [--no-metrics] [--control FILE] [--dot FILE] [--quiet] [--verbose]"
    static let options = CommandOptions([
        .valued("-e", "PIPELINE", "The pipeline inline instead of CONFIG."),
        .valued("--set", "NODE.PARAM=VALUE", "Override a node parameter (or session.KEY); repeatable. VALUE is read "
            + "as JSON when it parses (8000, true), else as a string."),
        .valued("--events", "jsonl", "Print every event to stdout as one JSON object per line (with a \"latency\" "
            + "event after each final transcript: speech end → final, first partial)."),
        .optional("--stats", choices: ["json", "table"], "At the end, print a table of every node to stderr: "
            + "processing time, share, real-time factor, frames in/out, queue high-water mark, drops, p50/p95 "
            + "per-frame latency, and each recognizer's speech end → final latency. --stats json prints them instead as the "
            + "last line on stdout: {\"type\":\"stats\",\"wallSeconds\":…,\"nodes\":{\"<node id>\":{…}}}."),
        .flag("--no-metrics", "Do not count per-node metrics (no --stats, no latency events)."),
        .valued("--control", "FILE", "Read session commands as JSON lines from FILE (a FIFO or a file), e.g. "
            + "{\"command\":\"startTranscription\"}, {\"command\":\"hideCaptions\"}, "
            + "{\"command\":\"setCaptionLanguage\",\"language\":\"en-US\"}, {\"command\":\"stop\"}. Each is answered "
            + "with an \"ack\" or an \"error\" event."),
        .valued("--dot", "FILE", "Write the resolved graph as Graphviz dot to FILE."),
        .flag("--quiet", "No progress bar, notes or summary on stderr."),
        .verbose,
    ])
    static let help = """
        \(abstract).

        USAGE: \(usage)

        CONFIG is a config file, or - (also /dev/stdin, a FIFO, <(…)) to read one from a stream (its relative
        paths are then from the working folder). -e PIPELINE gives the pipeline inline, gst-launch style:
          audiograph run -e 'file-source path=in.wav ! resampler sampleRate=16000 ! wav-sink path=out.wav'
        (`!` links, TYPE key=value, name=ID names a node, ID. branches from it; see docs/config.md).

        \(options.help)

        On a terminal, stderr's bottom row shows a progress bar for file sources and the latest level (under
        the partial caption of a live caption-sink; messages print above both), and keys steer the session: t toggles transcription, c toggles captions, q stops. t and c are live only when the config
        shows those controls (session.hideTranscriptionButton, session.hideClosedCaptionButton: both true by
        default, as in the calls SDK); a line at the start says which keys are live. --control is not limited by
        them. Transcription and captions start as the config's session block says (autoStartTranscription,
        captions; both false by default); when that leaves a recognizer, caption sink or store with nothing to
        do, one warning before audio flows names them and the fix (--set session.autoStartTranscription=true, t,
        or --control), and an SRT/WebVTT file left without a cue gets a note at the end saying why.
        Ctrl-C stops the sources, finalizes every output and exits 130.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        let stats = args.optionalValue("--stats")
        if stats != nil && args.flag("--no-metrics") {
            throw GraphError(.usage, at: "--stats", "needs metrics; drop --no-metrics")
        }
        let source = try ConfigSource(args, registry: registry)
        let eventsFormat = args.value("--events")
        if let eventsFormat, eventsFormat != "jsonl" {
            throw GraphError(.usage, at: "--events", "unknown format \"\(eventsFormat)\"; the format is jsonl")
        }
        let quiet = args.flag("--quiet")
        let jsonl = eventsFormat == "jsonl"

        let graph = try source.graph(registry: registry)
        if let dotPath = args.value("--dot") {
            try DotWriter.write(graph, to: dotPath)
        }
        if !quiet {
            for note in graph.notes { printError("audiograph: note: \(note)") }
            if graph.participants != nil && graph.serve == nil {
                printError("audiograph: note: this call's participants send their audio over the HTTP API's WebSocket "
                    + "(`audiograph serve --store STORE --run CONFIG`, or a \"serve\" block); here nobody can join, and Ctrl-C ends it")
            }
        }

        let session = TranscriptionSession(graph: graph, options: RunOptions(verbose: args.flag("--verbose"),
                                                                             metrics: !args.flag("--no-metrics")))
        let interrupts = InterruptSignals { session.cancel() }
        // After the handler: a SIGINT right after "serving" must not be lost.
        let server = try serve(graph, session)
        defer { server?.shutdown() }
        // The status line sits on its own row under live captions (`TerminalScreen`); messages go above both.
        let display = ProgressDisplay(progress: { session.progress() }, enabled: !quiet && Console.stderrIsTerminal)
        defer { withExtendedLifetime(interrupts) {} }
        let transcribed = Atomic<Bool>(session.isTranscribing)
        let control = SessionControl(session: session) { object in
            if object["transcribing"] == .bool(true) { transcribed.store(true, ordering: .relaxed) }
            if jsonl {
                printOut(JSONWriter.compact(.object(object)))
            } else if !quiet || object["type"]?.stringValue == "error" {
                let what = object["message"]?.stringValue
                    ?? "\(object["command"]?.stringValue ?? ""): transcription \(object["transcribing"] == .bool(true) ? "on" : "off"), "
                    + "captions \(object["captions"] == .bool(true) ? "on" : "off")"
                printError("audiograph: session: \(what)")
            }
        }
        let keysLive = args.value("--control") == nil && isatty(0) == 1
        // Before audio flows: a recognizer, caption sink or store that would produce nothing says so, once.
        if let silent = SilentOutputWarning.check(graph) { printError("audiograph: warning: \(silent)") }
        if keysLive && !quiet { printError("audiograph: \(session.controls.terminalKeyHelp)") }
        if let controlPath = args.value("--control") { control.follow(path: controlPath) }
        let restoreTerminal = args.value("--control") == nil ? control.followKeys() : nil
        defer { restoreTerminal?() }

        display.start()
        let heard = Atomic<Bool>(false)
        let summary: RunSummary
        do {
            summary = try session.run(
                onEvent: { event in
                    if jsonl { printOut(JSONWriter.compact(.object(event.json))) }
                    if case .transcript = event.payload { heard.store(true, ordering: .relaxed) }
                    display.observe(event)
                },
                onWarning: { message in
                    printError("audiograph: warning: \(message)")
                })
        } catch {
            display.stop()
            if jsonl {
                let object = JSONObject([("type", "error"), ("node", .string(error.nodeID ?? "")),
                                         ("message", .string(error.description))])
                printOut(JSONWriter.compact(.object(object)))
            }
            throw error
        }
        display.stop()
        if !quiet {
            let audio = summary.sources.map(\.seconds).max() ?? 0
            let speed = summary.wallSeconds > 0 ? audio / summary.wallSeconds : 0
            printError(String(format: "audiograph: %@ %.1f s of audio in %.2f s (%@ real time)",
                              summary.interrupted && !control.stopRequested ? "interrupted after" : "done:", audio,
                              summary.wallSeconds, RealTimeFactor.format(speed)))
        }
        for path in quiet ? [] : EmptyCaptionFiles.find(in: graph) {
            printError("audiograph: note: \(path) has no cue: " + (heard.load(ordering: .relaxed)
                ? "the recognizer's results held no words"
                : transcribed.load(ordering: .relaxed) || session.isTranscribing ? "the recognizer heard no speech"
                : "transcription was off for the whole run (see the warning at the start)"))
        }
        switch stats {
        case "json"?: printOut(JSONWriter.compact(.object(summary.statistics.json)))
        case "table"?: printError(summary.statistics.table)
        default: break
        }
        return summary.interrupted && !control.stopRequested ? GraphError.Code.interrupted.exitCode : 0
    }
}

extension RunCommand {
    /// With a `serve` block: the HTTP API over the store, with this run's live captions; it stops when the run
    /// ends.
    static func serve(_ graph: Graph, _ session: TranscriptionSession) throws(GraphError) -> TranscriptServer? {
        guard let settings = graph.serve else { return nil }
        let listen = try ServeOptions.address(settings.listen, at: "serve.listen")
        guard let path = settings.store ?? graph.instances(of: (any TranscriptStoreRole).self).first?.storeLocation else {
            throw GraphError(.invalidConfig, at: "serve.store",
                             "no store to serve: add a transcript-store node or give serve.store")
        }
        let store: any FullTranscriptStore
        do {
            store = try TranscriptStores.open(location: path)
        } catch {
            throw GraphError(.cannotCreateOutput, at: TranscriptStores.describe(location: path), error.message)
        }
        // A call takes its participants' audio over the server's WebSocket endpoint (docs/calls.md).
        let calls = CallAudioIngest()
        let server = try ServeOptions.start(store: store, listen: listen, limits: settings.limits, ingest: calls, at: "serve.listen")
        let live = ServeOptions.attach(session, graph: graph, to: server)
        calls.register(session, sessionID: live.id, settings: graph.session)
        ServeOptions.announce(server)
        return server
    }
}
