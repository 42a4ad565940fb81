import AudioGraph
import Foundation

struct JoinCommand: Command {
    static let name = "join"
    static let abstract = "Send a file or the microphone into a live call, printing its captions"
    static let usage = "audiograph join URL --speaker NAME [FILE | --mic [--device D]] [--token TOKEN] [--rate X] [--linger S] "
        + "[--no-captions]"
    static let options = CommandOptions([
        .valued("--speaker", "NAME", "Who sends: the participant name in the call (the token's user, unless it is a relay)."),
        .flag("--mic", "Send the microphone (PulseAudio/PipeWire, 16 kHz mono) until Ctrl-C, instead of a file."),
        .valued("--device", "D", "The microphone source for --mic (pactl list short sources; default: the default source)."),
        .valued("--token", "TOKEN", "The bearer token (audiograph tokens create); default: $AUDIOGRAPH_TOKEN."),
        .valued("--rate", "X", "Send a file X times faster than real time (default 1; 0.1 to 1000). The server reads at "
            + "most its --max-ingest-rate times real time and slows a faster sender."),
        .valued("--linger", "S", "After the audio ends, at most S seconds to wait for the speaker's last captions "
            + "(default 5; 0 to 600)."),
        .flag("--no-captions", "Only send; do not read the session's captions."),
    ])
    static let help = """
        \(abstract): the participant audio WebSocket of `audiograph serve --run` (docs/calls.md) from the
        command line. URL is the call's session URL, http://HOST:PORT/v1/sessions/ID; the audio goes to
        …/participants/NAME/audio as 16-bit PCM at the file's own rate and channels (the server resamples), paced
        at 1x (or --rate), and the session's captions are printed as they come, one `speaker: text` line per
        final (partials on a terminal only). At the end of the file (or Ctrl-C) a close frame 1000 goes out, the
        server finalizes the last sentence, and captions are printed until the speaker's last one came (at most
        --linger seconds). Plain http:// only (no TLS).

        USAGE: \(usage)

        \(options.help)

        Exit codes: 64 bad arguments or URL, 65 FILE is not audio the call takes, 66 no FILE, 69 the server cannot
        be reached or does not take the audio (no such call, not a participant: 404; already streaming: 409), 74
        the server closed the connection with an error code (printed with its reason) or it was lost, 77 the
        token is missing or not valid (401), 130 interrupted while sending a file (the close was sent first).
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        let positionals = args.positionals
        guard let urlText = positionals.first else { throw GraphError(.usage, at: "URL", "missing; usage: \(usage)") }
        let url = try CallJoinURL(urlText)
        guard let speaker = args.value("--speaker"), !speaker.isEmpty else {
            throw GraphError(.usage, at: "--speaker", "missing: who sends (a participant of the call)")
        }
        guard !TerminalText.containsControl(speaker) else {
            throw GraphError(.usage, at: "--speaker", "must not hold control characters")
        }
        let mic = args.flag("--mic")
        let file = positionals.count > 1 ? positionals[1] : nil
        guard positionals.count <= 2 else {
            throw GraphError(.usage, at: positionals[2], "unexpected argument; usage: \(usage)")
        }
        guard mic != (file != nil) else {
            throw GraphError(.usage, at: mic ? "--mic" : "FILE", mic ? "takes no FILE: send one or the other"
                             : "missing: a FILE to send, or --mic")
        }
        let rate = try number(args, "--rate", in: 0.1...1000, default: 1)
        let linger = try number(args, "--linger", in: 0...600, default: 5)
        if mic, args.value("--rate") != nil { throw GraphError(.usage, at: "--rate", "is for a FILE; the microphone goes at 1x") }
        let environmentToken = ProcessInfo.processInfo.environment["AUDIOGRAPH_TOKEN"].flatMap { $0.isEmpty ? nil : $0 }
        let token = args.value("--token") ?? environmentToken
        guard let token else {
            throw GraphError(.usage, at: "--token", "missing: give a token with --token or AUDIOGRAPH_TOKEN (audiograph tokens create)")
        }
        guard !token.contains(where: { $0.isWhitespace || $0.isNewline }), !TerminalText.containsControl(token) else {
            throw GraphError(.usage, at: "--token", "is not a token (it holds blanks or control characters)")
        }

        let source: any JoinAudioSource = mic ? try JoinMicrophoneSource(device: args.value("--device"))
                                              : try JoinFileSource(path: file!)
        let join = CallJoin(options: CallJoin.Options(url: url, speaker: speaker, token: token, rate: rate, lingerSeconds: linger,
                                                      captions: !args.flag("--no-captions")))
        let interrupts = InterruptSignals(stopping: mic ? "leaving the call" : "leaving the call (the rest of the file is not sent)") {
            join.stop()
        }
        defer { withExtendedLifetime(interrupts) {} }
        let terminal = Console.screen.isTerminal(.standardOutput)
        let seconds = mic ? "the microphone" : String(format: "%@ (%.1f s)", file!, (source as? JoinFileSource)?.durationSeconds ?? 0)
        let outcome = try join.run(source: source, connected: {
            printError("audiograph: joined \(url.description) as \(speaker): sending \(seconds)")
        }) { caption in
            let speaker = caption.speaker.map { TerminalText.escape($0) + ": " } ?? ""
            let text = TerminalText.escape(caption.text)
            switch caption.kind {
            case .final:
                if terminal { Console.screen.set(.caption, nil, on: .standardOutput) }
                printOut(speaker + text)
            case .partial:
                if terminal { Console.screen.set(.caption, speaker + text, on: .standardOutput) }
            case .clear:
                if terminal { Console.screen.set(.caption, nil, on: .standardOutput) }
            }
        }
        if terminal { Console.screen.set(.caption, nil, on: .standardOutput) }
        var summary = String(format: "audiograph: left the call: sent %.1f s of audio in %.1f s", outcome.sentSeconds,
                             outcome.sendingSeconds)
        if !args.flag("--no-captions") {
            summary += ", \(outcome.finals) final caption\(outcome.finals == 1 ? "" : "s") of \(speaker)"
        }
        if let last = outcome.closeToLastFinal { summary += String(format: " (the last %.2f s after the close)", last) }
        printError(summary)
        return outcome.stopped && !mic ? GraphError.Code.interrupted.exitCode : 0
    }

    private static func number(_ args: Arguments, _ name: String, in range: ClosedRange<Double>,
                               default value: Double) throws(GraphError) -> Double {
        guard let text = args.value(name) else { return value }
        guard let number = Double(text), range.contains(number) else {
            throw GraphError(.usage, at: name, "expects a number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
        }
        return number
    }
}
