import Foundation
import Synchronization

/// A final decoded ahead of `endUtterance` (the eager final pass): the utterance and frame count it decodes, and
/// the decoded window once the background has it. Shared between the node's thread and the background queue.
final class EagerFinal: Sendable {
    let utterance: Int
    let frames: Int
    let abort = AbortFlag()
    private let outcome = Mutex<WhisperWindow??>(nil)
    private let done = DispatchGroup()

    init(utterance: Int, frames: Int) {
        self.utterance = utterance
        self.frames = frames
        done.enter()
    }

    /// On the background queue: the decode finished (nil: failed or aborted).
    func finish(_ window: WhisperWindow?) {
        outcome.withLock { $0 = .some(window) }
        done.leave()
    }

    /// Waits for the job (never aborted by this call); nil when it failed or was aborted.
    func wait() -> WhisperWindow? {
        done.wait()
        return outcome.withLock { $0 ?? nil }
    }
}

/// The decoder of a real-time recognizer: partial hypotheses (the growing utterance decoded again), eager finals
/// and finals, one at a time on a serial queue, on the recognizer's one `whisper_state`.
///
/// Confinement (hence `@unchecked Sendable`): `state` is touched only by jobs on `queue`; everything else is a
/// `Mutex` or an `Atomic`.
final class WhisperBackground: @unchecked Sendable {
    private let state: WhisperState
    private let queue = DispatchQueue(label: "audiograph.whisper.background", qos: .userInitiated)
    /// How finals and partials are decoded; read when a job is queued (a language switch applies to later jobs).
    private let options: Mutex<(final: WhisperDecodeOptions, partial: WhisperDecodeOptions)>
    private let filter: WhisperHallucinationFilter
    /// The newest finished partial: its utterance and text.
    private let latest = Mutex<(utterance: Int, text: String)?>(nil)
    /// The partial decode queued or running, to abort it when it is no longer wanted.
    private let runningPartial = Mutex<AbortFlag?>(nil)
    /// Jobs queued or running.
    private let pending = Atomic<Int>(0)
    /// How long the last partial decode took, in seconds (the backoff).
    private let lastPartialSeconds = Mutex<Double>(0)
    /// Partial decodes started and finished (for tests and the measurements).
    let partialsDecoded = Atomic<Int>(0)

    init(state: WhisperState, finalOptions: WhisperDecodeOptions, filter: WhisperHallucinationFilter) {
        self.state = state
        options = Mutex((finalOptions, Self.partialOptions(finalOptions)))
        self.filter = filter
    }

    /// Partials are a preview: greedy without temperature fallback even when the finals use them, always in a
    /// fitted encoder window (a partial must end inside the sentence it previews), and on half the threads, so
    /// that the audio path and a final decoded meanwhile keep a core (on 2 cores: one thread each).
    static func partialOptions(_ finalOptions: WhisperDecodeOptions) -> WhisperDecodeOptions {
        var partial = finalOptions
        partial.tokenTimestamps = false
        partial.fitsAudioContext = true
        partial.beamSize = nil
        partial.temperatureIncrement = 0
        partial.threads = max(1, finalOptions.threads / 2)
        return partial
    }

    /// The options of finals queued from now on (partials follow them).
    var finalOptions: WhisperDecodeOptions {
        get { options.withLock { $0.final } }
        set { options.withLock { $0 = (newValue, Self.partialOptions(newValue)) } }
    }

    /// Whether a job is queued or running.
    var isBusy: Bool { pending.load(ordering: .relaxed) > 0 }

    /// The last partial decode's duration, in seconds.
    var lastPartialDuration: Double { lastPartialSeconds.withLock { $0 } }

    /// The newest partial of `utterance` ("" when none has finished yet).
    func partial(of utterance: Int) -> String {
        latest.withLock { latest in latest.flatMap { $0.utterance == utterance ? $0.text : nil } ?? "" }
    }

    /// Decodes `samples` (the utterance so far) for a partial hypothesis.
    func decodePartial(_ samples: [Float], utterance: Int) {
        let abort = AbortFlag()
        runningPartial.withLock { $0 = abort }
        let partialOptions = options.withLock { $0.partial }
        pending.add(1, ordering: .relaxed)
        queue.async { [self] in
            defer { pending.subtract(1, ordering: .relaxed) }
            guard !abort.isAborted else { return }
            let started = DispatchTime.now().uptimeNanoseconds
            let window = samples.withUnsafeBufferPointer { state.decode($0, partialOptions, abort: abort) }
            guard let window else { return }
            lastPartialSeconds.withLock { $0 = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9 }
            partialsDecoded.add(1, ordering: .relaxed)
            let words = window.words
            let text = filter.rejection(of: words, noSpeechProbability: window.noSpeechProbability) == nil
                ? WhisperWords.text(of: words) : ""
            latest.withLock { $0 = (utterance, text) }
        }
    }

    /// Stops the partial decode queued or running, if any (its result is not wanted any more).
    func abortPartial() {
        runningPartial.withLock { $0?.abort() }
    }

    /// Decodes `samples` as `job`'s final, after whatever is queued.
    func decodeFinal(_ samples: [Float], _ job: EagerFinal) {
        let finalOptions = self.finalOptions
        pending.add(1, ordering: .relaxed)
        queue.async { [self] in
            defer { pending.subtract(1, ordering: .relaxed) }
            guard !job.abort.isAborted else { return job.finish(nil) }
            job.finish(samples.withUnsafeBufferPointer { state.decode($0, finalOptions, abort: job.abort) })
        }
    }

    /// Waits until no job is queued or running.
    func drain() {
        queue.sync {}
    }
}
