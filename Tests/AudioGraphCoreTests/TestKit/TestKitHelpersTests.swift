import AudioGraphTestKit
import Foundation
import Testing

/// The test kit's waiting and folder helpers, which node authors' tests use too.
@Suite struct TestKitHelpersTests {
    @Test func eventuallyPollsUntilTheConditionHolds() async {
        var polls = 0
        let held = await eventually(every: .milliseconds(1)) {
            polls += 1
            return polls == 5
        }
        #expect(held && polls == 5)
    }

    @Test func eventuallyGivesUpAtTheTimeout() async throws {
        #expect(await eventually(timeout: 0.05, every: .milliseconds(5)) { false } == false)
        do {
            try await eventually("the impossible", timeout: 0.05) { false }
            Issue.record("no error")
        } catch let error as EventuallyTimedOut {
            #expect(error.description == "timed out after 0.05 s waiting for the impossible")
        }
        #expect(blockingEventually(timeout: 0.05) { false } == false)
        #expect(blockingEventually { true })
    }

    @Test func aTemporaryFolderHoldsFilesAndIsRemovedWithItsValue() throws {
        var folder: TemporaryFolder? = try TemporaryFolder(prefix: "testkit")
        let path = folder!.path
        let file = try folder!.write("a/b.txt", "hello")
        #expect(file == path + "/a/b.txt" && folder!.exists("a/b.txt"))
        #expect(try folder!.read("a/b.txt") == "hello")
        #expect(URL(fileURLWithPath: path).lastPathComponent.hasPrefix("testkit-"))
        folder = nil
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
