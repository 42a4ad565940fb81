import AudioGraph
import Dispatch
import Foundation

struct ServeCommand: Command {
    static let name = "serve"
    static let abstract = "Serve stored transcripts and live captions over HTTP"
    static let usage = "audiograph serve [--store PATH] [--listen HOST:PORT] [--threads N] [--public-url URL] [--run CONFIG]..."
    static let help = """
        \(abstract): the JSON API under /v1, captions as Server-Sent Events, and a web page at / (see
        docs/http-api.md). Every /v1 request needs "Authorization: Bearer TOKEN" (audiograph tokens create).
        GET /metrics answers Prometheus metrics without a token: per-node counters of every --run pipeline,
        labelled session="ID" (kept with their final totals once a pipeline ends), and no transcript text or
        user names.

        USAGE: \(usage)

        OPTIONS:
          --store PATH      The store to serve, a SQLite path or a postgres:// URL (default:
                            $XDG_DATA_HOME/audiograph/transcripts.sqlite, else
                            ~/.local/share/audiograph/transcripts.sqlite).
          --listen H:P      Address to listen on (default 127.0.0.1:8080; port 0 picks a free port).
          --threads N       Worker threads (default 4).
          --public-url URL  What served transcriptUrls start with (default http://HOST:PORT).
          --run CONFIG      Also run this pipeline, with its live captions at /v1/sessions/ID/captions
                            and its metrics at /metrics; repeatable. The server keeps serving after the
                            pipelines end.

        Prints "audiograph: serving http://HOST:PORT" on stderr once it accepts connections. SIGINT or SIGTERM
        stops the --run pipelines as Ctrl-C stops `audiograph run`: their sources stop and every output is
        drained and finalized (recordings playable, the last utterance's final written, the stored session's
        end time set). Then caption streams get `end`, the server stops accepting, lets requests in flight
        finish, and exits 0: stopping a server is its normal end, so 0 rather than run's 130. A second signal
        quits at once with 130 (outputs may then be unfinished).

        Exit codes: 64 bad arguments, 65 the store holds malformed data (or a bad --run config), 66 no store,
        69 cannot listen on the address.
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, valued: ["--store", "--listen", "--threads", "--public-url", "--run"], flags: [])
        _ = try args.requirePositionals([])
        let listen = try ServeOptions.address(args.value("--listen") ?? ServeSettings.defaultListen, at: "--listen")
        var threads = 4
        if let text = args.value("--threads") {
            guard let value = Int(text), (1...256).contains(value) else {
                throw GraphError(.usage, at: "--threads", "expects a number of threads from 1 to 256, not \"\(text)\"")
            }
            threads = value
        }
        let graphs = try args.values("--run").map { path throws(GraphError) in try loadGraph(configPath: path, registry: registry) }
        let store = try StoreOptions.openStore(args)
        defer { store.close() }
        // The handler first: a SIGINT right after "serving" must not be lost.
        let stop = DispatchSemaphore(value: 0)
        let interrupts = InterruptHandler(stopping: "finishing requests in flight, ending caption streams") { stop.signal() }
        defer { _ = interrupts }
        let server = try ServeOptions.start(store: store, listen: listen, threads: threads, publicURL: args.value("--public-url"),
                                            at: "--listen")
        var pipelines: [(session: TranscriptionSession, live: LiveSession)] = []
        for graph in graphs {
            let session = TranscriptionSession(graph: graph)
            let live = ServeOptions.attach(session, graph: graph, to: server)
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

    static func start(store: any FullTranscriptStore, listen: ListenAddress, threads: Int = 4, publicURL: String? = nil,
                      at location: String) throws(GraphError) -> TranscriptServer {
        let server: TranscriptServer
        do {
            server = try TranscriptServer(store: store, listen: listen, threads: threads, publicURL: publicURL)
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
