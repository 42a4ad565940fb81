import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

/// Issue 35, item 6: recognizers of one model file share one loaded model (one `whisper_context`, a state each),
/// so a call's new participant does not load the model again; it is freed with its last recognizer, and a file
/// changed on disk is loaded anew. Real model (a copy in a temporary folder, so no other test shares its loads).
@Suite(.ownThreads) struct WhisperModelSharingTests {
    static let node = NodeConfiguration(id: "asr", type: "recognizer", values: JSONObject())

    @Test func recognizersOfOneFileShareOneLoad() throws {
        let folder = try TemporaryFolder(prefix: "whisper-sharing")
        let path = folder.path("ggml-tiny.en.bin")
        try FileManager.default.copyItem(atPath: try WhisperTestSupport.realModel(), toPath: path)
        do {
            let first = try WhisperEngine.loadModel(at: path, install: "tiny.en", node: Self.node)
            let second = try WhisperEngine.loadModel(at: path, install: "tiny.en", node: Self.node)
            #expect(first === second && WhisperModelCache.loads(of: path) == 1, "the second recognizer shares the first's model")
            // A state each: both decode on their own.
            let states = [first.makeState(), second.makeState()]
            #expect(states.allSatisfy { $0 != nil } && states[0]?.pointer != states[1]?.pointer)
        }
        // Freed with its last recognizer (and state), loaded again after.
        do {
            _ = try WhisperEngine.loadModel(at: path, install: "tiny.en", node: Self.node)
        }
        #expect(WhisperModelCache.loads(of: path) == 2)

        // The same path with other bytes is another model.
        let kept = try WhisperEngine.loadModel(at: path, install: "tiny.en", node: Self.node)
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: path)
        try data.write(to: URL(fileURLWithPath: path))
        let fresh = try WhisperEngine.loadModel(at: path, install: "tiny.en", node: Self.node)
        #expect(fresh !== kept && WhisperModelCache.loads(of: path) == 4)
    }
}
