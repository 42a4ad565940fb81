import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// `TranscriptionSession.observeCaptions`: what a live-caption viewer (the HTTP API's caption stream) gets.
@Suite(.serialized, .ownThreads) struct LiveCaptionObserverTests {
    @Test func captionsFlowOnlyWhileVisibleAndHidingClears() async throws {
        let settings = SessionSettings(id: "s1", autoStartTranscription: true, captions: true)
        let (session, graph) = try TranscriptionSessionTests().makeSession(engine: "test-counting", blocks: 20, settings: settings)
        let source = graph.node("src")!.instance as! StepSourceNode
        let seen = Mutex<[LiveCaption]>([])
        session.observeCaptions { caption in seen.withLock { $0.append(caption) } }
        let (events, result) = session.start()
        // The observer runs before an event is passed on: once the test has read an event, the observer saw it.
        let read = Mutex<[TranscriptUpdate]>([])
        let drain = Task {
            for await event in events {
                if case .transcript(let update) = event.payload { read.withLock { $0.append(update) } }
            }
        }
        func texts() -> [String] {
            seen.withLock { $0 }.compactMap { if case .update(let update) = $0 { update.text } else { nil } }
        }
        func clears() -> Int { seen.withLock { $0 }.filter { $0 == .clear }.count }

        source.release(3)
        try await eventually("a partial of three blocks") { texts().contains("w1 w2 w3") }
        #expect(clears() == 0)

        try await session.hideCaptions()
        #expect(clears() == 1)
        let shownBefore = texts().count
        source.release(3)
        try await eventually("the recognizer's partial of six blocks, read while hidden") {
            read.withLock { $0 }.contains { $0.text == "w1 w2 w3 w4 w5 w6" }
        }
        #expect(texts().count == shownBefore, "nothing is shown while captions are hidden")

        try await session.showCaptions()
        #expect(clears() == 1, "showing does not clear")
        source.release(2)
        try await eventually("a partial of eight blocks") { texts().contains("w1 w2 w3 w4 w5 w6 w7 w8") }

        try await session.stopTranscription()
        #expect(clears() == 2)
        // Hiding again while already hidden is not another clear.
        try await session.hideCaptions()
        #expect(clears() == 2)
        source.release(12)
        _ = try await result.value
        await drain.value
        #expect(!texts().contains { $0.split(separator: " ").count > 8 }, "nothing after stop was shown")
    }
}
