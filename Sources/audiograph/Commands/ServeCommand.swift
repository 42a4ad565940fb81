import AudioGraph
import Dispatch
import Foundation

struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve stored transcripts and live captions over HTTP"
    static let usage = "audiograph serve [--store PATH] [--listen HOST:PORT] [--threads N] [--public-url URL] "
        + "[--max-connections-per-address N] [--header-timeout S] [--idle-timeout S] [--max-ingest-rate X] [--run CONFIG]..."
    static let options = CommandOptions([
        .store("The store to serve"),
        .valued("--listen", "H:P", "Address to listen on (default 127.0.0.1:8080; port 0 picks a free port)."),
        .valued("--threads", "N", "Worker threads (default 4)."),
        .valued("--public-url", "URL", "What served transcriptUrls start with (default http://HOST:PORT)."),
        .valued("--max-connections-per-address", "N", "Connections at once from one IP address; more are closed at "
            + "once (default \(HTTPClientLimits.defaultMaxConnectionsPerAddress); 0: no limit, e.g. behind a reverse "
            + "proxy)."),
        .valued("--header-timeout", "S", "Seconds a connection has to send a whole request, from when it opens or "
            + "its previous answer ended; then it is closed (default "
            + "\(HTTPClientLimits.defaultHeaderTimeoutSeconds))."),
        .valued("--idle-timeout", "S", "Seconds without traffic while an answer is sent before the connection is "
            + "closed (default \(HTTPClientLimits.defaultIdleTimeoutSeconds); caption streams are not cut by it or by "
            + "--header-timeout)."),
        .valued("--max-ingest-rate", "X", "How much faster than real time participants may send call audio over "
            + "/v1/sessions/ID/participants/P/audio before reading pauses (default 1; 0.1 to 1000; docs/calls.md)."),
        .valued("--run", "CONFIG", "Also run this pipeline, with its live captions at /v1/sessions/ID/captions and "
            + "its metrics at /metrics; repeatable. The server keeps serving after the pipelines end."),
    ])
    static let help = """
        \(abstract): the JSON API under /v1, captions as Server-Sent Events, and a web page at / (see
        docs/http-api.md). Every /v1 request needs "Authorization: Bearer TOKEN" (audiograph tokens create).
        GET /metrics answers Prometheus metrics without a token: per-node counters of every --run pipeline,
        labelled session="ID" (kept with their final totals once a pipeline ends), and no transcript text or
        user names.

        USAGE: \(usage)

        \(options.help)

        Prints "audiograph: serving http://HOST:PORT" on stderr once it accepts connections. SIGINT or SIGTERM
        stops the --run pipelines as Ctrl-C stops `audiograph run`: their sources stop and every output is
        drained and finalized (recordings playable, the last utterance's final written, the stored session's
        end time set). Then caption streams get `end`, the server answers new requests 503, lets requests
        in flight finish, and exits 0: stopping a server is its normal end, so 0 rather than run's 130. A
        second signal quits at once with 130 (outputs may then be unfinished).

        Exit codes: 64 bad arguments, 65 the store holds malformed data (or a bad --run config), 66 no store,
        69 cannot listen on the address, 74 the store cannot be read. The store is opened read-only.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        _ = try args.requirePositionals([])
        let listen = try ServeOptions.address(args.value("--listen") ?? ServeSettings.defaultListen, at: "--listen")
        var threads = 4
        if let text = args.value("--threads") {
            guard let value = Int(text), (1...256).contains(value) else {
                throw GraphError(.usage, at: "--threads", "expects a number of threads from 1 to 256, not \"\(text)\"")
            }
            threads = value
        }
        let limits = try ServeOptions.limits(args)
        var participantAudio = ParticipantAudioSettings()
        if let text = args.value("--max-ingest-rate") {
            let range = ParticipantAudioSettings.realtimeFactorRange
            guard let value = Double(text), range.contains(value) else {
                throw GraphError(.usage, at: "--max-ingest-rate",
                                 "expects a number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
            }
            participantAudio.maxRealtimeFactor = value
        }
        let graphs = try args.values("--run").map { path throws(GraphError) in try loadGraph(configPath: path, registry: registry) }
        let store = try StoreOptions.openStoreForReading(args)
        defer { store.close() }
        // The handler first: a SIGINT right after "serving" must not be lost.
        let stop = DispatchSemaphore(value: 0)
        let interrupts = InterruptSignals(stopping: "finishing requests in flight, ending caption streams") { stop.signal() }
        defer { withExtendedLifetime(interrupts) {} }
        // Calls (a --run config with a participant block) take their participants' audio over WebSockets.
        let calls = CallAudioIngest()
        let server = try ServeOptions.start(store: store, listen: listen, threads: threads, publicURL: args.value("--public-url"),
                                            limits: limits, participantAudio: participantAudio, ingest: calls, at: "--listen")
        var pipelines: [(session: TranscriptionSession, live: LiveSession)] = []
        for graph in graphs {
            let session = TranscriptionSession(graph: graph)
            let live = ServeOptions.attach(session, graph: graph, to: server)
            calls.register(session, sessionID: live.id, settings: graph.session)
            pipelines.append((session, live))
        }
        ServeOptions.announce(server)
        // Each pipeline's end: its events drained and its run over (outputs finalized), then viewers get `end`.
        let ended = DispatchGroup()
        for (session, live) in pipelines {
            let (events, result) = session.start()
            ended.enter()
            Task {
                for await _ in events {}
                if case .failure(let error) = await result.result { printError("audiograph: \(error)") }
                calls.unregister(sessionID: live.id)
                server.live.remove(live)  // viewers get `end`; the stored transcripts stay served
                ended.leave()
            }
        }
        stop.wait()
        // As `audiograph run` on Ctrl-C: the sources stop, and every pipeline drains and finalizes its outputs
        // (the recordings playable, the last utterance's final flushed, the session's end time stored) before
        // the server answers `end` and exits. A second signal quits at once (130).
        for pipeline in pipelines { pipeline.session.cancel() }
        ended.wait()
        server.shutdown()
        return 0
    }
}

/// What `serve` and `run` with a `serve` block share.
enum ServeOptions {
    static func address(_ text: String, at location: String) throws(GraphError) -> ListenAddress {
        guard let address = ListenAddress(text) else {
            throw GraphError(.usage, at: location, "expects HOST:PORT with an IPv4 host, like 127.0.0.1:8080, not \"\(text)\"")
        }
        return address
    }

    /// `--max-connections-per-address`, `--header-timeout` and `--idle-timeout`, each defaulting to the library's.
    static func limits(_ args: Arguments) throws(GraphError) -> HTTPClientLimits {
        var limits = HTTPClientLimits()
        let options: [(String, ClosedRange<Int>, WritableKeyPath<HTTPClientLimits, Int>)] = [
            ("--max-connections-per-address", HTTPClientLimits.connectionsRange, \.maxConnectionsPerAddress),
            ("--header-timeout", HTTPClientLimits.timeoutRange, \.headerTimeoutSeconds),
            ("--idle-timeout", HTTPClientLimits.timeoutRange, \.idleTimeoutSeconds),
        ]
        for (name, range, field) in options {
            guard let text = args.value(name) else { continue }
            guard let value = Int(text), range.contains(value) else {
                throw GraphError(.usage, at: name, "expects a whole number from \(range.lowerBound) to \(range.upperBound), not \"\(text)\"")
            }
            limits[keyPath: field] = value
        }
        return limits
    }

    static func start(store: any FullTranscriptStore, listen: ListenAddress, threads: Int = 4, publicURL: String? = nil,
                      limits: HTTPClientLimits = HTTPClientLimits(),
                      participantAudio: ParticipantAudioSettings = ParticipantAudioSettings(),
                      ingest: (any ParticipantAudioIngest)? = nil,
                      at location: String) throws(GraphError) -> TranscriptServer {
        let server: TranscriptServer
        do {
            server = try TranscriptServer(store: store, listen: listen, threads: threads, publicURL: publicURL, limits: limits,
                                          participantAudio: ingest, participantAudioSettings: participantAudio)
        } catch {
            throw GraphError(.unavailable, at: location, error.message)
        }
        return server
    }

    /// The line scripts and tests wait for: printed once the server accepts connections and its live sessions
    /// are registered.
    static func announce(_ server: TranscriptServer) {
        printError("audiograph: serving \(server.baseURL)")
    }

    /// Publishes a running pipeline's captions under its session id (the transcript-store node's, else the
    /// config's, else `live`).
    @discardableResult
    static func attach(_ session: TranscriptionSession, graph: Graph, to server: TranscriptServer) -> LiveSession {
        let storeNode = graph.instances(of: (any TranscriptStoreRole).self).first
        let id = storeNode?.sessionID ?? graph.session.id ?? "live"
        return server.attach(session, id: id, room: graph.session.room ?? "", participants: graph.session.effectiveParticipants)
    }
}
