import AudioGraphTestKit
import Testing
@testable import AudioGraphDSP

// The VAD's decision logic alone: every transition, the boundaries of minSpeech and hangover, preRoll clamping and
// end of stream. Frames here are 10 samples long, so positions read as "frame index × 10".

private typealias Action = VADStateMachine.Action

/// Feeds one decision per 10-sample frame, starting at `start` (default: where the machine's last frame ended);
/// returns (frame index, action) for each action.
private func feed(_ machine: inout VADStateMachine, _ pattern: String, from start: Int64? = nil)
    -> [(frame: Int, action: Action)] {
    let start = start ?? machine.lastFrameEnd
    var result: [(Int, Action)] = []
    for (i, c) in pattern.enumerated() {
        let begin = start + Int64(i) * 10
        if let action = machine.frame(start: begin, end: begin + 10, isSpeech: c == "S") {
            result.append((Int(begin / 10), action))
        }
    }
    return result
}

/// Actions only.
private func actions(_ machine: inout VADStateMachine, _ pattern: String) -> [Action] {
    feed(&machine, pattern).map(\.action)
}

@Suite(.ownThreads) struct VADStateMachineTests {
    // MARK: silence

    @Test func silenceStaysSilent() {
        var machine = VADStateMachine(minSpeech: 30, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "..........").isEmpty)
        #expect(machine.state == .silence)
        #expect(machine.finish(at: 100) == nil)
    }

    @Test func speechFrameInSilenceStartsACandidate() {
        var machine = VADStateMachine(minSpeech: 30, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "..S").isEmpty)
        #expect(machine.state == .candidate(runStart: 20))
        #expect(!machine.isSpeaking)
    }

    // MARK: minSpeech

    @Test func runReachingMinSpeechStartsSpeechAtTheRunStart() {
        var machine = VADStateMachine(minSpeech: 30, hangover: 50, preRoll: 0)
        let result = feed(&machine, "..SSS")
        // Reported on the frame that makes the run 30 samples long (frame 4), stamped at the run's start.
        #expect(result.count == 1)
        #expect(result[0].frame == 4)
        #expect(result[0].action == .speechStarted(at: 20))
        #expect(machine.state == .speaking(lastSpeechEnd: 50))
        #expect(machine.isSpeaking)
    }

    @Test func runOneFrameShortOfMinSpeechIsDropped() {
        var machine = VADStateMachine(minSpeech: 30, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "..SS.").isEmpty)
        #expect(machine.state == .silence)
    }

    @Test func minSpeechIsMetAtExactlyItsLength() {
        // 25 samples: 2 frames (20) are short, 3 frames (30) are enough.
        var machine = VADStateMachine(minSpeech: 25, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "SS.").isEmpty)
        #expect(actions(&machine, "SSS") == [.speechStarted(at: 30)])
    }

    @Test func candidateRunMustBeContiguous() {
        // Two 2-frame runs separated by one non-speech frame: neither reaches 30 samples.
        var machine = VADStateMachine(minSpeech: 30, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "SS.SS.SS.").isEmpty)
    }

    @Test func zeroMinSpeechStartsOnTheFirstSpeechFrame() {
        var machine = VADStateMachine(minSpeech: 0, hangover: 50, preRoll: 0)
        let result = feed(&machine, "...S")
        #expect(result.count == 1)
        #expect(result[0].frame == 3)
        #expect(result[0].action == .speechStarted(at: 30))
    }

    // MARK: hangover

    @Test func gapShorterThanHangoverDoesNotEndSpeech() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 50, preRoll: 0)
        // Gap of 4 frames (40 samples) < 50.
        #expect(actions(&machine, "SS....SS") == [.speechStarted(at: 0)])
        #expect(machine.state == .speaking(lastSpeechEnd: 80))
    }

    @Test func gapReachingHangoverEndsSpeechAtTheGapStart() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 50, preRoll: 0)
        let result = feed(&machine, "SSS.....")
        // The gap starts at 30; it reaches 50 samples at the end of frame 7 (position 80).
        #expect(result.map(\.action) == [.speechStarted(at: 0), .speechEnded(at: 30)])
        #expect(result[1].frame == 7)
        #expect(machine.state == .silence)
        #expect(machine.previousEnd == 30)
    }

    @Test func gapOneFrameShortOfHangoverKeepsSpeaking() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "SSS....") == [.speechStarted(at: 0)])
        #expect(machine.isSpeaking)
        // One more non-speech frame reaches the hangover.
        #expect(actions(&machine, ".") == [.speechEnded(at: 30)])
    }

    @Test func speechInTheGapResetsTheHangover() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 50, preRoll: 0)
        // Gaps of 4 frames with single speech frames between them never reach 50 samples.
        #expect(actions(&machine, "S....S....S....S") == [.speechStarted(at: 0)])
        #expect(machine.state == .speaking(lastSpeechEnd: 160))
    }

    @Test func zeroHangoverEndsOnTheFirstNonSpeechFrame() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 0, preRoll: 0)
        let result = feed(&machine, "SS.SS.")
        #expect(result.map(\.action) == [.speechStarted(at: 0), .speechEnded(at: 20),
                                         .speechStarted(at: 30), .speechEnded(at: 50)])
        #expect(result.map(\.frame) == [0, 2, 3, 5])
    }

    @Test func afterAnEndANewRunNeedsMinSpeechAgain() {
        var machine = VADStateMachine(minSpeech: 30, hangover: 20, preRoll: 0)
        #expect(actions(&machine, "SSS..") == [.speechStarted(at: 0), .speechEnded(at: 30)])
        #expect(actions(&machine, "SS.").isEmpty)
        #expect(actions(&machine, "SSS") == [.speechStarted(at: 80)])
    }

    // MARK: preRoll

    @Test func preRollMovesTheStartBack() {
        var machine = VADStateMachine(minSpeech: 20, hangover: 50, preRoll: 35)
        #expect(actions(&machine, "......SS") == [.speechStarted(at: 25)])
    }

    @Test func preRollIsClampedToTheStreamStart() {
        var machine = VADStateMachine(minSpeech: 20, hangover: 50, preRoll: 35)
        #expect(actions(&machine, ".SS") == [.speechStarted(at: 0)])
    }

    @Test func preRollIsClampedToThePreviousEnd() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 20, preRoll: 100)
        // First speech 0..<30 ends at 30 (reported at 50); the next run starts at 60, pre-roll would reach -40.
        let result = actions(&machine, "SSS...SS")
        #expect(result == [.speechStarted(at: 0), .speechEnded(at: 30), .speechStarted(at: 30)])
    }

    @Test func preRollNotReachingThePreviousEndIsKept() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 20, preRoll: 20)
        let result = actions(&machine, "S.........S")
        #expect(result == [.speechStarted(at: 0), .speechEnded(at: 10), .speechStarted(at: 80)])
    }

    // MARK: end of stream

    @Test func finishWhileSpeakingEndsAtTheStreamEnd() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "..SSS") == [.speechStarted(at: 20)])
        // Samples after the last decided frame (undecided tail) still count as speech.
        #expect(machine.finish(at: 57) == .speechEnded(at: 57))
        #expect(machine.state == .silence)
        #expect(machine.previousEnd == 57)
    }

    @Test func finishInAGapEndsWhereTheGapBegan() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "SSS..") == [.speechStarted(at: 0)])
        #expect(machine.finish(at: 55) == .speechEnded(at: 30))
    }

    @Test func finishDropsAShortCandidate() {
        var machine = VADStateMachine(minSpeech: 50, hangover: 50, preRoll: 0)
        #expect(actions(&machine, "..SS").isEmpty)
        #expect(machine.finish(at: 40) == nil)
        #expect(machine.state == .silence)
    }

    @Test func finishAfterAnEndReportsNothing() {
        var machine = VADStateMachine(minSpeech: 10, hangover: 20, preRoll: 0)
        #expect(actions(&machine, "SS...") == [.speechStarted(at: 0), .speechEnded(at: 20)])
        #expect(machine.finish(at: 50) == nil)
    }

    // MARK: units and invariants

    @Test func millisecondInitializerConvertsAtTheSampleRate() {
        let machine = VADStateMachine(minSpeechMs: 100, hangoverMs: 500, preRollMs: 50, sampleRate: 16_000)
        #expect(machine.minSpeech == 1_600)
        #expect(machine.hangover == 8_000)
        #expect(machine.preRoll == 800)
        let odd = VADStateMachine(minSpeechMs: 10, hangoverMs: 1, preRollMs: 0, sampleRate: 44_100)
        #expect(odd.minSpeech == 441)
        #expect(odd.hangover == 44)
    }

    @Test func framesStartingLaterThanZeroKeepTheirPositions() {
        var machine = VADStateMachine(minSpeech: 20, hangover: 20, preRoll: 15)
        let result = feed(&machine, "SS..", from: 1_000)
        #expect(result.map(\.action) == [.speechStarted(at: 985), .speechEnded(at: 1_020)])
    }

    /// Over many pseudo-random decision patterns: starts and ends alternate, every segment has positive length,
    /// segments do not overlap, a start never precedes 0 or the previous end, and every run the machine reports
    /// contains a speech run of at least minSpeech; pause hints come only inside speech, once per gap, in order.
    @Test(arguments: [(0, 0, 0, 0), (30, 50, 20, 20), (50, 0, 100, 0), (10, 100, 0, 30), (40, 40, 40, 10), (30, 60, 0, 60)])
    func randomPatternsKeepTheInvariants(minSpeech: Int, hangover: Int, preRoll: Int, pauseHint: Int) {
        var seed: UInt64 = 0x1234_5678
        func next() -> UInt64 {
            seed ^= seed << 13
            seed ^= seed >> 7
            seed ^= seed << 17
            return seed
        }
        for _ in 0..<50 {
            var machine = VADStateMachine(minSpeech: Int64(minSpeech), hangover: Int64(hangover),
                                          preRoll: Int64(preRoll), pauseHint: Int64(pauseHint))
            var pattern = ""
            var speech = false
            for _ in 0..<200 {
                if next() % 5 == 0 { speech.toggle() }
                pattern.append(speech ? "S" : ".")
            }
            var all = actions(&machine, pattern)
            if let last = machine.finish(at: 2_000) { all.append(last) }
            var lastEnd: Int64 = 0
            var open: Int64?
            var lastHint: Int64?
            for action in all {
                switch action {
                case .speechStarted(let at):
                    #expect(open == nil)
                    #expect(at >= lastEnd && at >= 0)
                    open = at
                case .speechEnded(let at):
                    guard let start = open else {
                        Issue.record("speechEnded without speechStarted")
                        continue
                    }
                    #expect(at > start)
                    #expect(at - start >= Int64(minSpeech))
                    if let lastHint { #expect(at >= lastHint) }
                    lastEnd = at
                    open = nil
                    lastHint = nil
                case .speechPausing(let at):
                    #expect(pauseHint > 0 && pauseHint < hangover)
                    guard let start = open else {
                        Issue.record("speechPausing outside speech")
                        continue
                    }
                    #expect(at > start)
                    if let lastHint { #expect(at > lastHint, "one hint per gap") }
                    lastHint = at
                case .speechSplit:
                    Issue.record("no maxSpeech here, so no split")
                }
            }
            #expect(open == nil)
        }
    }

    // MARK: pause hint

    @Test func aGapReachingPauseHintIsReportedOnceAtItsStart() {
        var machine = VADStateMachine(minSpeech: 0, hangover: 50, preRoll: 0, pauseHint: 20)
        // Speech in frames 0-2 (ends at 30); the gap reaches 20 samples at the end of frame 4.
        let result = feed(&machine, "SSS.......")
        #expect(result.map(\.action) == [.speechStarted(at: 0), .speechPausing(at: 30), .speechEnded(at: 30)])
        #expect(result[1].frame == 4)
        #expect(result[2].frame == 7)
    }

    @Test func thePauseHintHasTheStampOfTheSpeechEndThatFollows() {
        var machine = VADStateMachine(minSpeech: 20, hangover: 60, preRoll: 10, pauseHint: 30)
        let all = actions(&machine, "..SSSS.S..........")
        let hints = all.compactMap { if case .speechPausing(let at) = $0 { return at } else { return nil } }
        let ends = all.compactMap { if case .speechEnded(let at) = $0 { return at } else { return nil } }
        #expect(hints == [80])
        #expect(ends == hints)
    }

    @Test func gapsShorterThanPauseHintAreNotReported() {
        var machine = VADStateMachine(minSpeech: 0, hangover: 50, preRoll: 0, pauseHint: 30)
        // Gaps of 20 samples inside speech: no hint, no end.
        #expect(actions(&machine, "SS..SS..SS..SS") == [.speechStarted(at: 0)])
        #expect(machine.pauseReported == false)
    }

    @Test func eachLongEnoughGapIsReportedOnceAndSpeechMayResumeAfterIt() {
        var machine = VADStateMachine(minSpeech: 0, hangover: 60, preRoll: 0, pauseHint: 20)
        // Two 4-frame gaps (40 samples: past pauseHint, short of hangover), then one that ends the speech.
        let result = feed(&machine, "SS....SS....SS........")
        #expect(result.map(\.action) == [.speechStarted(at: 0), .speechPausing(at: 20), .speechPausing(at: 80),
                                         .speechPausing(at: 140), .speechEnded(at: 140)])
        #expect(result.map(\.frame) == [0, 3, 9, 15, 19])
    }

    @Test(arguments: [0, 50, 80] as [Int64])
    func noPauseHintWhenZeroOrNotBelowTheHangover(pauseHint: Int64) {
        var machine = VADStateMachine(minSpeech: 0, hangover: 50, preRoll: 0, pauseHint: pauseHint)
        #expect(actions(&machine, "SSS........SS....S..........") == [.speechStarted(at: 0), .speechEnded(at: 30),
                                                                     .speechStarted(at: 110), .speechEnded(at: 180)])
    }

    @Test func endOfStreamInAHintedGapEndsAtTheHintsStamp() {
        var machine = VADStateMachine(minSpeech: 0, hangover: 50, preRoll: 0, pauseHint: 20)
        #expect(actions(&machine, "SSS...") == [.speechStarted(at: 0), .speechPausing(at: 30)])
        #expect(machine.finish(at: 60) == .speechEnded(at: 30))
        #expect(machine.pauseReported == false)
    }

    @Test func millisecondsConvertAtTheSampleRate() {
        let machine = VADStateMachine(minSpeechMs: 100, hangoverMs: 650, preRollMs: 50, pauseHintMs: 200, sampleRate: 16_000)
        #expect(machine.pauseHint == 3_200)
        #expect(VADStateMachine(minSpeechMs: 100, hangoverMs: 650, preRollMs: 50, sampleRate: 16_000).pauseHint == 0)
    }
}
