import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 17, item 3 (level meter): a pipeline with a `level-meter` puts its levels on the caption stream as
/// `level` events, at most 10 per second of stream time, whatever transcription does.
@Suite struct LiveLevelsAPITests {
    static func levels(_ text: String) -> [[String: Double]] {
        LiveCaptionsAPITests.events(text).filter { $0.name == "level" }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.data.utf8)) as? [String: Double]
        }
    }

    @Test func levelsAreThrottledByStreamTime() throws {
        let fixture = try APIFixture()
        let live = fixture.live.add(id: "standup", room: "", participants: ["alice"])
        live.publishLevel(time: 0, level: 0.1)  // no viewer yet: nothing is kept for later
        let viewer = try StreamTap(fixture.get("/v1/sessions/standup/captions", token: fixture.aliceToken))
        for (time, level) in [(0.05, 0.2), (0.1, 0.3), (0.12, 0.4), (0.19, 0.5), (0.25, 0.6), (0.36, 0.7123456)] {
            live.publishLevel(time: time, level: level)
        }
        let sent = Self.levels(viewer.all)
        #expect(sent.map { $0["time"]! } == [0.1, 0.25, 0.36], "\(sent)")
        #expect(sent.map { $0["level"]! } == [0.3, 0.6, 0.712])
    }

    @Test func aRunningLevelMeterReachesViewersAtAboutTenASecond() async throws {
        let fixture = try ControlFixture(settings: SessionSettings(id: "standup"), levelMeter: true)
        defer { Task { await fixture.finish() } }
        let viewer = try StreamTap(fixture.api.get("/v1/sessions/standup/captions", token: fixture.api.aliceToken))
        try await eventually("six level events") { Self.levels(viewer.all).count >= 6 }
        let sent = Self.levels(viewer.all)
        let times = sent.map { $0["time"]! }
        for (before, after) in zip(times, times.dropFirst()) {
            #expect(after - before >= 0.1 - 1e-9, "more than 10 a second: \(times)")
        }
        #expect(sent.allSatisfy { (0...1).contains($0["level"]!) && $0["level"]! > 0 }, "a tone has a level: \(sent)")
        #expect(!fixture.session.isTranscribing, "levels flow with transcription off")
    }
}
