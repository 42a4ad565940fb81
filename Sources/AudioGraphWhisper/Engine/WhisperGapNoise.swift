/// What goes between two utterances in a packed window: the recording's own background level, not digital
/// silence. whisper was trained on audio padded with zeros at its end, so a stretch of zeros after noisy speech
/// tells the decoder that the audio is over: with 2 s of zeros between utterances, a clip of the evaluation set
/// at 10 dB SNR lost its second sentence whole (the decoder ended the window after the first). White noise at the
/// quietest level found at the utterances' edges (their pre-roll and tail are background, not speech) sounds like
/// the room; in a clean recording that level is 0 and the gap stays silent. Pure and deterministic.
enum WhisperGapNoise {
    /// Audio measured at each end of an utterance: 200 ms.
    static let edgeFrames = 3200
    /// The level is the RMS of the quietest 20 ms frame of those edges.
    static let levelFrames = 320

    /// The background level of a window's utterances: the RMS of the quietest 20 ms frame in the first and last
    /// 200 ms of each (0 when none has a whole frame).
    static func level(of utterances: [[Float]]) -> Float {
        var quietest = Float.infinity
        for utterance in utterances {
            let edges = [0..<min(edgeFrames, utterance.count), max(0, utterance.count - edgeFrames)..<utterance.count]
            for edge in edges {
                var start = edge.lowerBound
                while start + levelFrames <= edge.upperBound {
                    var sum: Float = 0
                    for index in start..<(start + levelFrames) { sum += utterance[index] * utterance[index] }
                    quietest = min(quietest, (sum / Float(levelFrames)).squareRoot())
                    start += levelFrames
                }
            }
        }
        return quietest.isFinite ? min(quietest, maximumLevel) : 0
    }

    /// The loudest background the gap gets: -40 dBFS RMS. Edges that are louder are not a room's background but
    /// a signal (a tone, music) that fills the utterance: white noise that loud made whisper write text between
    /// 60 s of tones. Capped, the dev clips at 10 dB (louder than the cap) still gave 91 errors, as uncapped.
    static let maximumLevel: Float = 0.01

    /// `count` samples of uniform white noise with RMS `level`, the same for the same `seed`.
    static func samples(count: Int, level: Float, seed: UInt64) -> [Float] {
        guard level > 0 else { return [Float](repeating: 0, count: count) }
        var state = seed &+ 0x9E37_79B9_7F4A_7C15
        let amplitude = level * Float(3).squareRoot()  // a uniform -a…a has RMS a/√3
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407  // Knuth's MMIX LCG
            let unit = Float(state >> 40) / Float(1 << 24)
            return (unit * 2 - 1) * amplitude
        }
    }
}
