import AudioGraphCore
import AudioGraphIO
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 14, item 9 — "FIFOs hang", where a `file-source` is made without the graph builder (an embedder, a
/// test harness): the node itself looks at what the path is before opening it, so a FIFO with no writer is
/// refused (exit 66 at `nodes.<id>.path`) instead of blocking the open forever.
@Suite(.ownThreads) struct FileSourceFIFOTests {
    @Test("a file-source on a FIFO with no writer is refused at once, naming the JSON path")
    func fifoRefused() throws {
        try withTemporaryFolder(prefix: "FileSourceFIFOTests") { dir in
            let path = dir + "/pipe.wav"
            #expect(mkfifo(path, 0o600) == 0)
            var parameters = JSONObject()
            parameters["path"] = .string(path)
            do {
                _ = try NodeHarness(type: FileSourceNode.self, id: "src", parameters: parameters, input: nil)
                Issue.record("a FIFO was accepted as a file-source")
            } catch let error as GraphError {
                #expect(error.code == .missingInput && error.location == "nodes.src.path", "\(error)")
                #expect(error.message.contains("FIFO"), "\(error)")
            }
        }
    }
}
