import AudioGraph
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// `MetricsEndpoint` (sources in order, replaced by key), `GET /metrics` through `TranscriptsAPI` (no token;
/// 404 when the API has none), and `MetricsServer` on a real socket.
@Suite struct MetricsEndpointUnitTests {
    @Test func sourcesRunInOrderAndReplaceByKey() {
        let endpoint = MetricsEndpoint()
        endpoint.set("a") { $0.add(gauge: "first", help: "First.", value: 1) }
        endpoint.set("b") { $0.add(gauge: "second", help: "Second.", value: 2) }
        endpoint.set("a") { $0.add(gauge: "first", help: "First.", value: 3) }
        #expect(endpoint.text() == "# HELP first First.\n# TYPE first gauge\nfirst 3\n# HELP second Second.\n# TYPE second gauge\nsecond 2\n")
        endpoint.remove("a")
        #expect(endpoint.text() == "# HELP second Second.\n# TYPE second gauge\nsecond 2\n")
        let response = endpoint.response()
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
        #expect(response.header("Cache-Control") == "no-store")
    }

    @Test func apiAnswersMetricsWithoutAToken() throws {
        let fixture = try APIFixture()
        // The fixture's API has no metrics: /metrics is an unknown path.
        #expect(fixture.get("/metrics", token: nil).status == 404)
        let endpoint = MetricsEndpoint()
        endpoint.set("live") { $0.add(gauge: "audiograph_live_sessions", help: "Live.", value: 0) }
        let api = TranscriptsAPI(store: fixture.store, tokens: fixture.tokens, live: fixture.live,
                                 publicURL: APIFixture.publicURL, metrics: endpoint)
        let response = api.handle(HTTPRequest(path: "/metrics"))
        #expect(response.status == 200)
        #expect(response.text.hasSuffix("audiograph_live_sessions 0\n"), "\(response.text)")
        #expect(response.header("X-Content-Type-Options") == "nosniff")
        #expect(api.handle(HTTPRequest(method: "HEAD", path: "/metrics")).status == 200)
        #expect(api.handle(HTTPRequest(method: "POST", path: "/metrics")).status == 405)
    }

    @Test func metricsServerAnswersMetricsOnly() async throws {
        let server = try MetricsServer(listen: try #require(ListenAddress("127.0.0.1:0")))
        defer { server.shutdown() }
        server.endpoint.set("x") { $0.add(counter: "audiograph_worker_files_total", help: "Files.", labels: [("outcome", "done")],
                                          value: Int64(2)) }
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)" && server.port != 0)
        let (data, response) = try await URLSession.shared.data(from: try #require(URL(string: server.baseURL + "/metrics")))
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == PrometheusExposition.contentType)
        #expect(String(decoding: data, as: UTF8.self).contains("audiograph_worker_files_total{outcome=\"done\"} 2\n"))
        let (_, missing) = try await URLSession.shared.data(from: try #require(URL(string: server.baseURL + "/v1/calls")))
        #expect((missing as? HTTPURLResponse)?.statusCode == 404)
    }
}
