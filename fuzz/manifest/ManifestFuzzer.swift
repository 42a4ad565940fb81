import AudioGraphCore
import AudioGraphSessions
import AudioGraphStore
import FuzzSupport

/// libFuzzer target `manifest`: a batch manifest (JSON Lines) through `BatchManifest.parse`, then each item
/// through the batch pipeline's per-file config, as `audiograph batch` does before it runs anything. It must
/// answer work items or a `GraphError` naming `MANIFEST:LINE`, never crash; every item has an absolute path and
/// a session id no other item has.
private let base = "/fuzz/batch"
private let pipeline = try! BatchPipeline(text: """
    {"version": 1, "nodes": {"src": {"type": "file-source", "path": "in.wav"},
     "store": {"type": "transcript-store", "path": "t.sqlite"}}, "links": ["src -> store"]}
    """, baseDirectory: base, name: "pipeline.json", store: "/fuzz/store.sqlite")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let items: [WorkItem]
    do {
        items = try BatchManifest.parse(Fuzz.text(data, size), name: "fuzz.jsonl", baseDirectory: base)
    } catch {
        Fuzz.expect(error.location.hasPrefix("fuzz.jsonl"), "a manifest error that does not name the manifest: \(error)")
        return 0
    }
    var sessions = Set<String>()
    for item in items {
        Fuzz.expect(item.path.hasPrefix("/"), "a work item with a relative path: \(item.path)")
        let session = pipeline.sessionID(for: item)
        Fuzz.expect(!session.isEmpty, "an empty session id for \(item.path)")
        Fuzz.expect(sessions.insert(session).inserted, "two work items with session \(session)")
        let spec = pipeline.spec(for: item)
        Fuzz.expect(spec.session.id == session, "the per-file config runs under \(spec.session.id ?? "nil"), not \(session)")
        Fuzz.expect(spec.nodes.first { $0.id == "src" }?.parameters["path"]?.stringValue == item.path,
                    "the per-file config does not read \(item.path)")
    }
    return 0
}
