import AudioGraph

struct CallsCommand: Command {
    static let name = "calls"
    static let abstract = "List the stored sessions (call logs), oldest first"
    static let usage = "audiograph calls [--has-transcriptions] [--limit N] [--page P | --all] [--store PATH] [--json]"
    static let options = CommandOptions([
        .flag("--has-transcriptions", "Only sessions that had transcription, each with its transcripts."),
        .valued("--limit", "N", "Sessions per page (default 30; clamped to 1…1000)."),
        .valued("--page", "P", "The page to print (default 1)."),
        .flag("--all", "Print every page."),
        .flag("--timings", "Print each page's fetch time on stderr."),
        .store(),
        .flag("--json", "Print records as JSON: mid, roomName, startTime, endTime (epoch seconds; 0 while running), "
            + "url, hasTranscriptions, transcripts, metaData."),
    ])
    static let help = """
        \(abstract): one per run of a pipeline with a transcript-store node.

        USAGE: \(usage)

        \(options.help)

        Exit codes: 64 bad arguments, 65 the store holds malformed data, 66 no store at the path, 74 the store
        cannot be read.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        _ = try args.requirePositionals([])
        let paging = try StoreOptions.paging(args)
        let store = try StoreOptions.openStoreForReading(args)
        defer { store.close() }
        let transcribed = args.flag("--has-transcriptions")
        let request = CallLogsRequest.Builder().hasTranscriptions(transcribed).limit(paging.limit).store(store).build()
        let pages = try StoreOptions.walk(paging, timings: args.flag("--timings")) { () async throws(TranscriptsError) in
            try await request.fetchNext()
        }
        let calls = pages.flatMap { $0 }
        if args.flag("--json") {
            printOut(StoreOptions.json(calls))
            return 0
        }
        if calls.isEmpty {
            printError("audiograph: no sessions" + (transcribed ? " with transcriptions" : "")
                + (paging.page > 1 && !paging.all ? " on page \(paging.page)" : ""))
            return 0
        }
        let width = max(7, calls.map { TerminalText.escape($0.mid).count }.max() ?? 0)
        printOut(["SESSION".padding(toLength: width, withPad: " ", startingAt: 0), "START               ",
                  "END                 ", "TRANSCRIBED", "ROOM"].joined(separator: "  "))
        for call in calls {
            printOut([TerminalText.escape(call.mid).padding(toLength: width, withPad: " ", startingAt: 0), StoreOptions.date(call.startTime),
                      StoreOptions.date(call.endTime), (call.hasTranscriptions ? "yes" : "no").padding(toLength: 11, withPad: " ", startingAt: 0),
                      TerminalText.escape(call.roomName)].joined(separator: "  "))
            for transcript in call.transcripts {
                printOut("    \(transcript.tid)  \(StoreOptions.date(transcript.startTime))\(StoreOptions.date(transcript.endTime))")
            }
        }
        return 0
    }
}
