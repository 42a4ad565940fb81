import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// The control tests' engine (session logic only): every 0.1 s of audio is one word; en-US and fr-FR.
enum ControlWordsRecognizer {
    static let engine = BlockCountingRecognizer.engine(name: "test-control-words")
}

/// An `APIFixture` with a running `TranscriptionSession` (an endless real-time tone into the test recognizer)
/// attached as live session `standup` with participants alice and carol.
final class ControlFixture: @unchecked Sendable {
    let api: APIFixture
    let session: TranscriptionSession
    let live: LiveSession
    let carolToken: String
    private let result: Task<RunSummary, any Error>

    init(settings: SessionSettings = SessionSettings(id: "standup", hideTranscriptionButton: false,
                                                     hideClosedCaptionButton: false),
         participants: [String] = ["alice", "carol"], levelMeter: Bool = false) throws {
        _ = try? RecognizerEngines.register(ControlWordsRecognizer.engine)  // later calls find it registered
        var registry = NodeRegistry.builtins
        try? registry.register(ToneSourceNode.self, origin: "test")
        try? registry.register(RecordingSinkNode.self, origin: "test")
        var settings = settings
        settings.participants = participants
        var nodes = [NodeSpec(id: "src", type: "test-tone", parameters: ["endless": true, "realtime": true, "blockFrames": 1600]),
                     NodeSpec(id: "asr", type: "recognizer",
                              parameters: ["engine": "test-control-words", "partials": "on", "partialIntervalMs": 100]),
                     NodeSpec(id: "rec", type: "test-recorder")]
        if levelMeter { nodes.append(NodeSpec(id: "level", type: "level-meter", parameters: ["intervalMs": 20])) }
        let spec = GraphSpec(
            session: settings,
            nodes: nodes,
            links: try LinkSpec.chain("src -> asr") + LinkSpec.chain(levelMeter ? "src -> level -> rec" : "src -> rec"),
            baseDirectory: "/")
        api = try APIFixture()
        carolToken = try api.tokens.create(user: "carol").token
        session = TranscriptionSession(graph: try GraphBuilder(registry: registry).build(spec))
        let (events, result) = session.start()
        Task { for await _ in events {} }
        self.result = result
        live = api.live.attach(session, id: "standup", room: "lab", participants: participants)
    }

    /// Stops the graph and waits for its end.
    func finish() async {
        session.cancel()
        _ = try? await result.value
    }

    /// `POST path` with `body` (JSON by default) and alice's token unless told otherwise. Call from a plain
    /// thread (`onWorker`): a control call blocks until its command is in the graph.
    func post(_ path: String, _ body: String, token: String?, contentType: String? = "application/json",
              headers extra: [String: String] = [:], query: [(String, String)] = []) -> HTTPResponse {
        var headers = extra
        if let token { headers["authorization"] = "Bearer \(token)" }
        if let contentType { headers["content-type"] = contentType }
        return api.api.handle(HTTPRequest(method: "POST", path: path, query: query.map { (name: $0.0, value: $0.1) },
                                          headers: headers, body: Array(body.utf8)))
    }
}

/// Runs `work` on a dispatch thread (as the HTTP daemon's worker threads run the API), never on a Swift
/// concurrency thread, which a blocking control call must not hold.
func onWorker<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        DispatchQueue.global().async { continuation.resume(returning: work()) }
    }
}

/// The `state` events in an SSE text, as JSON objects, in order.
func stateEvents(_ text: String) -> [[String: Any]] {
    LiveCaptionsAPITests.events(text).filter { $0.name == "state" }.compactMap {
        try? JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Any]
    }
}

/// Collects an event stream's text as it is drained.
final class StreamTap: Sendable {
    let stream: EventStream
    private let text = Mutex("")
    init(_ response: HTTPResponse) throws {
        guard case .events(let stream) = response.body else { throw HarnessFailure("not an event stream: \(response.status) \(response.text)") }
        self.stream = stream
    }
    /// Everything sent so far.
    var all: String { text.withLock { $0 += stream.drain(); return $0 } }
}

struct HarnessFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

