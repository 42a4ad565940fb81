import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `GET /metrics` on the real binary: `audiograph serve --run CONFIG` (per-session, per-node series while the
/// session runs and its final totals after), and `audiograph worker --metrics-port` (per-node totals over the
/// files done, file counts), read back by a real Prometheus parser; `--metrics-port` errors.
@Suite("GET /metrics (serve, worker --metrics-port)", .serialized)
struct MetricsEndpointTests {
    static let nodes = ["src": "file-source", "rs": "resampler", "vad": "vad", "asr": "recognizer", "store": "transcript-store"]

    @Test("serve --run: /metrics without a token has per-session, per-node series; the totals stay after the session ends",
          .enabled(if: PrometheusParser.enabled, PrometheusParser.skipNote))
    func serveMetrics() async throws {
        let dir = try TemporaryFolder()
        // 23 s of speech read in real time: the session must still run when /metrics is read after the first
        // caption, however late a loaded machine lets that caption come (with 7.7 s, a parallel run of the suite
        // beside a benchmark read the gauges after the session had ended).
        try await ServeSpeech.make(times: 3, in: dir)
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try dir.write("live.json", ServeSpeech.config(session: "metrics-live", participants: ["alice"],
                                                      store: "store/transcripts.sqlite"))
        let server = try await ServeProcess.start(fixture.serveArguments + ["--run", "live.json"], in: dir)
        do {
            // Audio has flowed through the whole graph once a caption came out.
            let stream = try await ServeEventStream(port: server.port, path: "/v1/sessions/metrics-live/captions",
                                                    token: fixture.aliceToken)
            defer { stream.disconnect() }
            #expect(await stream.head()?.status == 200)
            let flowing = await stream.waitForEvents(timeout: 60) { $0.contains { $0.event == "caption" } }
            #expect(flowing, "captions flow\n\(stream.current?.reply.text ?? "")")

            let running = try await ServeHTTP.get(server.url("/metrics"))
            #expect(running.status == 200, "\(running)")
            #expect(running.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8", "\(running)")
            #expect(running.header("Cache-Control") == "no-store", "\(running)")
            // Counters only: no user names, tokens or paths.
            expectNoLeaks(running, ["alice", fixture.aliceToken, fixture.storePath, dir.path])
            let families = try await PrometheusParser.parse(running.text, in: dir)
            PrometheusParser.checkStructure(families, text: running.text)
            #expect(families.value("audiograph_live_sessions") == 1, "\(running.text)")
            #expect(families.value("audiograph_session_running", ["session": "metrics-live"]) == 1)
            for (node, type) in Self.nodes {
                let labels = ["session": "metrics-live", "node": node, "type": type]
                #expect((families.value("audiograph_node_calls", labels) ?? 0) > 0, "\(node)\n\(running.text)")
                #expect(families.value(
                    "audiograph_node_latency_seconds", sample: "audiograph_node_latency_seconds_count", labels) != nil, "\(node)")
            }
            let sourceFrames = try #require(families.value("audiograph_node_frames_out", ["session": "metrics-live", "node": "src"]))
            #expect(sourceFrames > 0)
            #expect((families.value("audiograph_node_frames_in", ["session": "metrics-live", "node": "asr"]) ?? 0) > 0)
            #expect((families.value("audiograph_node_events_out", ["session": "metrics-live", "node": "asr"]) ?? 0) > 0)
            #expect((families.value("audiograph_node_processing_seconds", ["session": "metrics-live", "node": "asr"]) ?? 0) > 0)
            #expect(families[family: "audiograph_speech_end_to_final_seconds"]?.samples
                .allSatisfy { $0.labels["node"] == "asr" && $0.labels["session"] == "metrics-live" } == true)

            // The session ends with its audio: its final totals stay, marked not running.
            #expect(await stream.waitForEnd(timeout: 120), "\(stream.current?.reply.text ?? "")")
            let ended = try await ServeHTTP.get(server.url("/metrics"))
            let after = try await PrometheusParser.parse(ended.text, in: dir)
            PrometheusParser.checkStructure(after, text: ended.text)
            #expect(after.value("audiograph_live_sessions") == 0, "\(ended.text)")
            #expect(after.value("audiograph_session_running", ["session": "metrics-live"]) == 0, "\(ended.text)")
            let finalFrames = try #require(after.value("audiograph_node_frames_out", ["session": "metrics-live", "node": "src"]))
            #expect(finalFrames >= sourceFrames)
            // 3 x 7.7 s of 16-bit audio from speech.wav (the source's own rate) went out of the source.
            #expect(finalFrames > 3 * 7 * 8000, "\(ended.text)")
            #expect((after.value("audiograph_speech_end_to_final_seconds", sample: "audiograph_speech_end_to_final_seconds_count",
                                 ["node": "asr"]) ?? 0) > 0, "\(ended.text)")

            let exit = try await server.stop()
            #expect(exit.isClean, "\(exit)")
        } catch {
            _ = try? await server.stop()
            throw error
        }
    }

    @Test("serve without pipelines: /metrics answers audiograph_live_sessions 0; other methods 405")
    func serveWithoutPipelines() async throws {
        let dir = try TemporaryFolder()
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        try await ServeProcess.with(fixture.serveArguments, in: dir) { server in
            let reply = try await ServeHTTP.get(server.url("/metrics"))
            #expect(reply.status == 200, "\(reply)")
            #expect(reply.text == "# HELP audiograph_live_sessions Sessions this server runs now.\n"
                + "# TYPE audiograph_live_sessions gauge\naudiograph_live_sessions 0\n", "\(reply)")
            let post = try await ServeHTTP.request(server.url("/metrics"), method: "POST")
            expectAPIError(post, status: 405, code: "method_not_allowed")
        }
    }

    // MARK: Workers

    @Test("worker --metrics-port: after a file is done, per-node totals and files_total; SIGTERM exits 0",
          .enabled(if: PrometheusParser.enabled, PrometheusParser.skipNote))
    func workerMetrics() async throws {
        let dir = try TemporaryFolder()
        let names = try await BatchFixtures.makeCalls(1, in: dir)
        try dir.write("m.jsonl", "{\"path\": \"\(names[0])\", \"session\": \"first\"}\n")
        try BatchFixtures.writePipeline(in: dir)
        let enqueue = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", "t.sqlite",
                                                    "--enqueue-only"], in: dir)
        #expect(enqueue.status == 0, "\(enqueue)")
        let worker = try await MetricsProcess.start(["worker", "--store", "t.sqlite", "--wait", "--jobs", "1",
                                                     "--metrics-port", "0"], in: dir)
        do {
            #expect(worker.metricsURL.hasPrefix("http://127.0.0.1:") && worker.metricsURL.hasSuffix("/metrics"), "\(worker.metricsURL)")
            let done = await worker.stderr.waitFor { $0.contains { $0.hasPrefix("audiograph: done: ") && $0.contains(names[0]) } }
            #expect(done)
            let reply = try await ServeHTTP.get(worker.metricsURL)
            #expect(reply.status == 200, "\(reply)")
            #expect(reply.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8", "\(reply)")
            let families = try await PrometheusParser.parse(reply.text, in: dir)
            PrometheusParser.checkStructure(families, text: reply.text)
            #expect(families.value("audiograph_worker_files", ["outcome": "done"]) == 1, "\(reply.text)")
            #expect(families.value("audiograph_worker_files", ["outcome": "failed"]) == 0, "\(reply.text)")
            #expect(families.value("audiograph_worker_busy_jobs") == 0, "\(reply.text)")
            #expect(families.value("audiograph_worker_jobs") == 1, "\(reply.text)")
            #expect((families.value("audiograph_worker_audio_seconds") ?? 0) > 3.9, "\(reply.text)")
            // 4 s at 16 kHz out of the source; every node called.
            #expect(families.value("audiograph_node_frames_out", ["node": "src", "type": "file-source"]) == 64000, "\(reply.text)")
            for node in ["src", "vad", "asr", "store"] {
                #expect((families.value("audiograph_node_calls", ["node": node]) ?? 0) > 0, "\(node)\n\(reply.text)")
            }
            #expect((families.value("audiograph_node_frames_in", ["node": "asr"]) ?? 0) > 0, "\(reply.text)")
            #expect(families[family: "audiograph_node_calls"]?.samples.allSatisfy { $0.labels["session"] == nil } == true)

            let (exit, stderr) = try await worker.stop(SIGTERM)
            #expect(exit.status == 0 && !exit.signalled, "exit \(exit.status)\n\(stderr)")
        } catch {
            _ = try? await worker.stop(SIGKILL)
            throw error
        }
    }

    @Test("a bad --metrics-port: exit 64 naming --metrics-port", arguments: [
        ["worker", "--store", "t.sqlite", "--metrics-port", "http"],
        ["worker", "--store", "t.sqlite", "--metrics-port", "65536"],
        ["worker", "--store", "t.sqlite", "--metrics-port", "localhost:9464"],
        ["worker", "--store", "t.sqlite", "--metrics-port", "1.2.3:9464"],
        ["worker", "--store", "t.sqlite", "--metrics-port", ""],
        ["batch", "m.jsonl", "--pipeline", "p.json", "--metrics-port", "99999"],
        ["batch", "m.jsonl", "--pipeline", "p.json", "--store", "t.sqlite", "--enqueue-only", "--metrics-port", "0"],
    ])
    func badMetricsPort(arguments: [String]) async throws {
        let dir = try TemporaryFolder()
        try dir.write("m.jsonl", "{\"path\": \"a.wav\"}\n")
        try BatchFixtures.writePipeline(in: dir)
        let result = try await Harness.audiograph(arguments, in: dir)
        expectError(result, exit: 64, at: "--metrics-port")
        #expect(!dir.exists("t.sqlite"), "nothing created on a usage error")
    }

    @Test("worker --metrics-port on a port in use: exit 69 naming --metrics-port")
    func metricsPortInUse() async throws {
        let dir = try TemporaryFolder()
        try dir.write("m.jsonl", "{\"path\": \"a.wav\"}\n")
        try BatchFixtures.writePipeline(in: dir)
        let enqueue = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", "t.sqlite",
                                                    "--enqueue-only", "--quiet"], in: dir)
        #expect(enqueue.status == 0, "\(enqueue)")
        let listener = try TCPListener()
        defer { listener.close() }
        let result = try await Harness.audiograph(["worker", "--store", "t.sqlite", "--metrics-port", "\(listener.port)"], in: dir)
        expectError(result, exit: 69, at: "--metrics-port")
        let status = try await Harness.audiograph(["batch", "status", "--store", "t.sqlite", "--json"], in: dir)
        #expect(status.stdout.contains(#""queued":1"#), "the file is still queued\n\(status)")
    }

    @Test("worker and batch --help document --metrics-port")
    func help() async throws {
        let dir = try TemporaryFolder()
        for command in ["worker", "batch"] {
            let result = try await Harness.audiograph([command, "--help"], in: dir)
            #expect(result.status == 0, "\(result)")
            #expect(result.stdout.contains("--metrics-port PORT") && result.stdout.contains("69 cannot listen on --metrics-port"),
                    "\(result)")
        }
    }
}
