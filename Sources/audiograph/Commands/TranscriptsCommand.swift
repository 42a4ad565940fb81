import AudioGraph
import Dispatch
import Foundation
import Synchronization

struct TranscriptsCommand: Command {
    static let name = "transcripts"
    static let abstract = "List a session's stored transcripts, or show one"
    static let usage = "audiograph transcripts list --session ID [--limit N] [--page P | --all] [--store PATH] [--json]\n"
        + "       audiograph transcripts show TID [--store PATH] [--json]"
    static let options = CommandOptions([
        .valued("--session", "ID", "The session (its id in the config's \"session\" block, or the run-… id it was "
            + "given)."),
        .valued("--limit", "N", "Transcripts per page (default 30; clamped to 1…1000)."),
        .valued("--page", "P", "The page to print (default 1). Pages are keyset pages: page P is found by walking "
            + "pages 1…P, each one index lookup."),
        .flag("--all", "Print every page."),
        .flag("--timings", "Print each page's fetch time on stderr."),
        .store(),
        .flag("--json", "Print records as JSON, with the fields tid, mid, roomName, startTime, endTime (epoch "
            + "seconds), url, transcriptDate, transcriptUrl, metaData (show adds language and utterances)."),
    ])
    static let help = """
        \(abstract) (written by a pipeline's transcript-store node).

        USAGE: \(usage)

        list   The session's transcripts, oldest first, one page at a time: tid, start and end (UTC), room.
        show   One transcript's utterances as lines "[mm:ss.cc → mm:ss.cc] text" (stream time; a call's
               "[…] speaker: text").

        \(options.help)

        Exit codes: 64 bad arguments, 65 the store holds malformed data, 66 no store at the path or no such
        transcript, 74 the store cannot be read.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        guard let subcommand = args.positionals.first else {
            throw GraphError(.usage, at: "", "missing SUBCOMMAND (list or show); see --help")
        }
        switch subcommand {
        case "list": return try list(args)
        case "show": return try show(args)
        default:
            throw GraphError(.usage, at: subcommand, "unknown subcommand" + Suggestions.hint(for: subcommand, in: ["list", "show"])
                + "; subcommands: list, show")
        }
    }

    static func list(_ args: Arguments) throws(GraphError) -> Int32 {
        _ = try args.requirePositionals(["subcommand"])
        guard let session = args.value("--session"), !session.isEmpty else {
            throw GraphError(.usage, at: "--session", "transcripts list needs the session id: --session ID")
        }
        try StoreOptions.reject(["--has-transcriptions"], in: args)
        let paging = try StoreOptions.paging(args)
        let store = try StoreOptions.openStoreForReading(args)
        defer { store.close() }
        let request = TranscriptsRequest.Builder().sessionId(session).limit(paging.limit).store(store).build()
        let pages = try StoreOptions.walk(paging, timings: args.flag("--timings")) { () async throws(TranscriptsError) in
            try await request.fetchNext()
        }
        let records = pages.flatMap { $0 }
        if args.flag("--json") {
            printOut(StoreOptions.json(records))
        } else if !records.isEmpty {
            let width = max(3, records.map(\.tid.count).max() ?? 0)
            printOut(["TID".padding(toLength: width, withPad: " ", startingAt: 0), "START               ",
                      "END                 ", "ROOM"].joined(separator: "  "))
            for record in records {
                printOut([record.tid.padding(toLength: width, withPad: " ", startingAt: 0),
                          StoreOptions.date(record.startTime), StoreOptions.date(record.endTime), TerminalText.escape(record.roomName)]
                    .joined(separator: "  "))
            }
        }
        if records.isEmpty, !args.flag("--json") {
            printError("audiograph: no transcripts for session \(session)" + (paging.page > 1 && !paging.all ? " on page \(paging.page)" : ""))
        }
        return 0
    }

    static func show(_ args: Arguments) throws(GraphError) -> Int32 {
        let tid = try args.requirePositionals(["subcommand", "tid"])[1]
        try StoreOptions.reject(["--session", "--limit", "--page", "--all", "--timings"], in: args)
        let store = try StoreOptions.openStoreForReading(args)
        defer { store.close() }
        let detail: TranscriptDetail?
        do {
            detail = try store.detail(tid: tid)
        } catch {
            throw StoreOptions.error(error, store: StoreOptions.describe(args))
        }
        guard let detail else {
            throw GraphError(.missingInput, at: tid, "no transcript with this id in \(StoreOptions.describe(args)); "
                + "see `audiograph transcripts list --session ID`")
        }
        if args.flag("--json") {
            printOut(StoreOptions.json(detail))
        } else {
            for utterance in detail.utterances {
                let speaker = utterance.speaker.map { TerminalText.escape($0) + ": " } ?? ""
                printOut("[\(clock(utterance.start)) → \(clock(utterance.end))] \(speaker)\(TerminalText.escape(utterance.text))")
            }
        }
        return 0
    }

    /// `01:02.35` (minutes, seconds, hundredths); `1:02:03.40` from an hour on.
    static func clock(_ seconds: Double) -> String {
        let hundredths = Int((max(0, seconds.isFinite ? seconds : 0) * 100).rounded())
        let (h, m, s, c) = (hundredths / 360_000, hundredths / 6000 % 60, hundredths / 100 % 60, hundredths % 100)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return (h > 0 ? "\(h):" : "") + "\(two(m)):\(two(s)).\(two(c))"
    }
}
