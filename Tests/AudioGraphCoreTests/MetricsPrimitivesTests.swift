@testable import AudioGraphCore
import Testing

@Suite struct MetricsPrimitivesTests {
    @Test("histogram buckets: log-linear, four per octave, bounds contain their values")
    func histogramBuckets() {
        for value: UInt64 in [0, 1, 1023, 1024, 1279, 1280, 1536, 2047, 2048, 999_999, 1_000_000, 123_456_789_012] {
            let bucket = LatencyHistogram.bucket(for: value)
            #expect(LatencyHistogram.lowerBound(of: bucket) <= value)
            if bucket < LatencyHistogram.bucketCount - 1 { #expect(value < LatencyHistogram.upperBound(of: bucket)) }
        }
        #expect(LatencyHistogram.bucket(for: 1024) == 1)
        #expect(LatencyHistogram.bucket(for: 1280) == 2)
        #expect(LatencyHistogram.upperBound(of: 4) == 2048)
    }

    @Test("histogram quantiles are within a bucket of the exact ones")
    func histogramQuantiles() {
        var histogram = LatencyHistogram()
        #expect(histogram.quantile(0.5) == nil)
        for microseconds in 1...1000 { histogram.record(nanoseconds: UInt64(microseconds) * 1000) }
        let p50 = histogram.quantile(0.5)!, p95 = histogram.quantile(0.95)!
        #expect(abs(p50 - 500e-6) / 500e-6 < 0.125)
        #expect(abs(p95 - 950e-6) / 950e-6 < 0.125)
        #expect(histogram.count == 1000)
        #expect(histogram.sumNanoseconds == 500_500_000)
        // Cumulative at power-of-two bounds: exactly the values at or below them.
        #expect(histogram.cumulativeCounts(atOrBelow: [131_072e-9, 1_048_576e-9]) == [131, 1000])
        var merged = histogram
        merged.merge(histogram)
        #expect(merged.count == 2000 && merged.quantile(0.5) == p50)
    }

    @Test("latency samples: nearest-rank percentiles, fixed cumulative buckets, the latest 4096 kept")
    func latencySamples() {
        var samples = LatencySamples()
        for value in [0.45, 0.15, 0.95, 0.25, 2.5] { samples.record(value) }
        #expect(samples.quantile(0.5) == 0.45)
        #expect(samples.quantile(0.95) == 2.5)
        #expect(samples.count == 5 && abs(samples.sum - 4.3) < 1e-9)
        let bounds = LatencySamples.bucketBounds
        #expect(samples.cumulativeCounts[bounds.firstIndex(of: 0.2)!] == 1)
        #expect(samples.cumulativeCounts[bounds.firstIndex(of: 0.5)!] == 3)
        #expect(samples.cumulativeCounts[bounds.firstIndex(of: 3)!] == 5)
        var many = LatencySamples()
        for index in 0..<5000 { many.record(index < 904 ? 100 : 1) }
        #expect(many.count == 5000)
        #expect(many.quantile(1) == 1)  // the 904 early outliers were pushed out
    }

    @Test("speech latency tracker: VAD speech end, partial from speech start, a cut utterance uses its end")
    func tracker() {
        var tracker = SpeechLatencyTracker()
        let wall: (Double) -> Double? = { $0 + 64 }  // audio at t was there at 64 + t (binary-exact sums)
        tracker.received(.speechStarted, at: 1.0)
        let partial = TranscriptUpdate(segment: 7, revision: 1, isFinal: false, start: 0.9, end: 1.4, text: "a")
        #expect(tracker.emitted(partial, now: 65.5, wallTime: wall) == nil)
        // A later partial of the same segment does not move the first-partial figure.
        #expect(tracker.emitted(partial, now: 69, wallTime: wall) == nil)
        tracker.received(.speechEnded, at: 2.0)
        let final = TranscriptUpdate(segment: 7, revision: 3, isFinal: true, start: 0.9, end: 2.05, text: "a b")
        #expect(tracker.emitted(final, now: 66.75, wallTime: wall)
            == SpeechLatency(segment: 7, speechEnd: 2.0, speechEndToFinal: 0.75, firstPartial: 0.5))
        // Cut at maxUtterance: no speechEnded and no partial; measured from the final's end.
        let cut = TranscriptUpdate(segment: 8, revision: 1, isFinal: true, start: 2.5, end: 32.5, text: "c")
        #expect(tracker.emitted(cut, now: 97, wallTime: wall)
            == SpeechLatency(segment: 8, speechEnd: 32.5, speechEndToFinal: 0.5, firstPartial: nil))
        // Before any audio, nothing can be measured.
        var empty = SpeechLatencyTracker()
        #expect(empty.emitted(final, now: 1, wallTime: { _ in nil }) == nil)
    }

    @Test("speech latency tracker: a stale speech end or start is not used")
    func trackerIgnoresStaleSpeechEvents() {
        var tracker = SpeechLatencyTracker()
        let wall: (Double) -> Double? = { $0 + 64 }
        // Speech from 10 to 12 that made no final (noise decoded to nothing), then a final cut at the length cap.
        tracker.received(.speechStarted, at: 10)
        tracker.received(.speechEnded, at: 12)
        let cut = TranscriptUpdate(segment: 2, revision: 1, isFinal: true, start: 20, end: 50, text: "c")
        #expect(tracker.emitted(cut, now: 114.5, wallTime: wall)?.speechEndToFinal == 0.5, "from the final's end, not 12")
        // A new speechStarted forgets the old end even before the final.
        tracker.received(.speechEnded, at: 60)
        tracker.received(.speechStarted, at: 70)
        let next = TranscriptUpdate(segment: 3, revision: 1, isFinal: true, start: 70, end: 75, text: "d")
        #expect(tracker.emitted(next, now: 139.25, wallTime: wall)?.speechEnd == 75)
        // Transcription started in the middle of speech that began at 100: the first partial counts from the
        // segment's start (130), not 100.
        tracker.received(.speechStarted, at: 100)
        let partial = TranscriptUpdate(segment: 4, revision: 1, isFinal: false, start: 130, end: 131, text: "e")
        _ = tracker.emitted(partial, now: 194.5, wallTime: wall)
        tracker.received(.speechEnded, at: 132)
        let final = TranscriptUpdate(segment: 4, revision: 2, isFinal: true, start: 130, end: 132, text: "e f")
        #expect(tracker.emitted(final, now: 196.5, wallTime: wall)
            == SpeechLatency(segment: 4, speechEnd: 132, speechEndToFinal: 0.5, firstPartial: 0.5))
    }

    @Test("latency events round-trip through their JSON form")
    func latencyEvent() {
        let latency = SpeechLatency(segment: 3, speechEnd: 12.3456, speechEndToFinal: 0.41, firstPartial: 0.22)
        let event = latency.event(node: "asr")
        #expect(JSONWriter.compact(.object(event.json))
            == #"{"type":"latency","node":"asr","time":12.346,"segment":3,"speechEndToFinal":0.41,"firstPartial":0.22}"#)
        #expect(SpeechLatency(event)?.speechEndToFinal == 0.41)
        let noPartial = SpeechLatency(segment: 1, speechEnd: 1, speechEndToFinal: 0.5, firstPartial: nil).event(node: "a")
        #expect(noPartial.json["firstPartial"] == nil)
    }

    @Test("timeline: a paced file's clock starts at its first block's start, a live source's at its end")
    func realtimeTimeline() {
        let paced = StreamTimeline(realtime: true)
        #expect(paced.wallTime(ofStreamTime: 1) == nil)
        paced.sourceEmitted(start: 0, end: 0.1, live: false, at: 50)
        #expect(!paced.wantsBlocks)
        paced.sourceEmitted(start: 0.1, end: 0.2, live: false, at: 70)  // ignored: the anchor is fixed
        #expect(paced.wallTime(ofStreamTime: 2) == 52)
        let live = StreamTimeline(realtime: true)
        live.sourceEmitted(start: 0, end: 0.1, live: true, at: 50)
        #expect(live.wallTime(ofStreamTime: 2) == 51.9)
    }

    @Test("timeline: faster than real time, each stream time maps to its block's emission, oldest kept first")
    func batchTimeline() {
        let timeline = StreamTimeline(realtime: false)
        for block in 0..<5000 {
            timeline.sourceEmitted(start: Double(block), end: Double(block + 1), live: false, at: 1000 + Double(block) / 10)
        }
        #expect(timeline.wantsBlocks)
        #expect(timeline.wallTime(ofStreamTime: 4999.5) == 1000 + 499.9)
        #expect(timeline.wallTime(ofStreamTime: 2000) == 1000 + 200.0)  // the block [2000, 2001)
        #expect(timeline.wallTime(ofStreamTime: 10) == 1000 + 90.4)  // older than kept: the oldest block (904)
        #expect(timeline.wallTime(ofStreamTime: 9999) == 1000 + 499.9)
    }
}
