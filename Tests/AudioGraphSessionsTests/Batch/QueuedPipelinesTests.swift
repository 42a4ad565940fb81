import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// A worker's pipeline cache (`QueuedPipelines`) and the store cleaner a retry runs first.
@Suite("batch: queued pipelines and the session cleaner", .ownThreads)
struct QueuedPipelinesTests {
    static let pipeline = """
        {"version": 1, "nodes": {"src": {"type": "file-source", "path": "placeholder.wav"}, "vad": {"type": "vad"}},
         "links": ["src -> vad"]}
        """

    static func item(_ key: String, pipeline: String? = Self.pipeline, base: String? = "/data") -> WorkItem {
        WorkItem(key: key, path: "\(key).wav", pipeline: pipeline, pipelineBase: base)
    }

    /// A cache whose `make` counts its calls.
    /// Counts `make` calls.
    final class Calls: Sendable {
        private let count = Mutex(0)
        func add() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    static func cache(made: Calls? = nil) -> QueuedPipelines {
        QueuedPipelines(overrides: ["src.path=other.wav"], store: nil) { pipeline, _ throws(GraphError) in
            made?.add()
            return BatchRunner(pipeline: pipeline, build: { spec throws(GraphError) in
                throw GraphError(.usage, at: "build", "not built in this test")
            })
        }
    }

    @Test("each pipeline text and folder is loaded once; another text or folder gets a runner of its own")
    func loadsOnce() throws {
        let made = Calls()
        let cache = Self.cache(made: made)
        let first = try cache.runner(for: Self.item("a"))
        #expect(try cache.resolver(Self.item("b")) === first)
        #expect(made.value == 1)
        let other = try cache.runner(for: Self.item("c", base: "/elsewhere"))
        #expect(other !== first && other.pipeline.configPath.contains("/elsewhere"))
        #expect(try cache.runner(for: Self.item("d", pipeline: Self.pipeline + " ")) !== first)
        #expect(made.value == 3)
    }

    @Test("an item enqueued without its pipeline is a usage error at --pipeline naming the item")
    func missingPipeline() {
        #expect {
            try Self.cache().runner(for: Self.item("old", pipeline: nil))
        } throws: { error in
            let error = error as? GraphError
            return error?.code == .usage && error?.location == "--pipeline"
                && error?.message.contains("queue item \"old\" (old.wav) was enqueued without its pipeline") == true
        }
    }

    @Test("a pipeline that does not load names the item it came with, and is tried again for the next item")
    func badPipelineNotKept() {
        let made = Calls()
        let cache = Self.cache(made: made)
        for key in ["x", "y"] {
            #expect {
                try cache.runner(for: Self.item(key, pipeline: "{\"version\": 1, \"nodes\": {\"src\": {\"type\": \"vad\"}}, \"links\": []}"))
            } throws: { error in
                (error as? GraphError)?.description.contains("the queued pipeline of \"\(key)\"") == true
            }
        }
        #expect(made.value == 0)
    }

    @Test("the store cleaner removes only the sessions tagged with the item")
    func cleanerRemovesTaggedSessions() throws {
        let folder = try TemporaryFolder(prefix: "cleaner")
        let location = folder.path("t.sqlite")
        let store = try TranscriptStores.open(location: location, create: true)
        _ = try store.createSession(NewSession(sessionID: "call", startTime: 1, workItem: "item-1"))
        _ = try store.createSession(NewSession(sessionID: "call", startTime: 2, workItem: "item-2"))
        _ = try store.createSession(NewSession(sessionID: "call", startTime: 3))
        store.close()

        try BatchRunner.storeCleaner(location: location)("item-1")
        let reopened = try TranscriptStores.open(location: location, create: false)
        defer { reopened.close() }
        #expect(try reopened.sessions(after: nil, limit: 10, transcribedOnly: false).count == 2)
    }

    @Test("the store cleaner reports a store it cannot open")
    func cleanerError() {
        #expect(throws: TranscriptsError.self) {
            try BatchRunner.storeCleaner(location: "/dev/null/t.sqlite")("item-1")
        }
    }
}
