import AudioGraphCore
import Foundation
import Synchronization

/// A captioning session around a running graph, as captioning SDKs offer it: transcription and captions are
/// switched while the audio keeps flowing (the recording and the level meter never pause).
///
/// - Captions show only while transcription runs *and* captions are on; stopping transcription clears the
///   captions on screen; starting again opens new segments.
/// - The session never names a node type: it reads the recognizers' engines and languages through
///   `TranscriberRole`, and steers every node with in-band `ControlCommand`s (start/stop transcription, captions
///   on/off, caption language) that each node handles or forwards, so a config that swaps the recognizer engine
///   or the caption format runs the same code.
/// - Settings come from the config's `session` block, or from `SessionSettings` in code.
///
/// ```swift
/// let session = try TranscriptionSession(spec: spec, settings: SessionSettings(id: "standup", captions: true),
///                                        registry: .builtins)
/// let (events, result) = session.start()
/// try await session.startTranscription()
/// ```
public final class TranscriptionSession: SteerableSession {
    public let settings: SessionSettings
    private let runtime: GraphRuntime
    private let transcribers: [(engine: String, languages: [String], hint: String?)]
    private let state: Mutex<(transcribing: Bool, captionsOn: Bool, language: String)>
    private let captionObservers = Mutex<[@Sendable (LiveCaption) -> Void]>([])
    private let stateObservers = Mutex<[@Sendable (TranscriptionSessionState) -> Void]>([])
    private let levelObservers = Mutex<[@Sendable (_ time: Double, _ reading: LevelReading, _ speaker: String?) -> Void]>([])
    private let participantObservers = Mutex<[@Sendable ([ParticipantPresence]) -> Void]>([])
    /// A call's participants, in the order they first joined: open connections (a reconnect may overlap the
    /// end of the previous one) and whether they muted.
    private let roster = Mutex<(order: [String], entries: [String: (connections: Int, muted: Bool)])>(([], [:]))

    /// Wraps a built graph; its `session` block gives the settings.
    public init(graph: Graph, clock: any MediaClock = SystemClock(), options: RunOptions = RunOptions()) {
        settings = graph.session
        transcribers = graph.instances(of: (any TranscriberRole).self).map { ($0.engineName, $0.supportedLanguages, $0.languageHint) }
        state = Mutex((settings.autoStartTranscription, settings.captions, settings.captionLanguage))
        var initial: [ControlCommand] = []
        if !settings.autoStartTranscription { initial.append(.stopTranscription) }
        if !settings.captions { initial.append(.hideCaptions) }
        runtime = GraphRuntime(graph: graph, clock: clock, options: options, initialCommands: initial)
    }

    /// Builds `spec` with `settings` in place of its session block.
    public convenience init(spec: GraphSpec, settings: SessionSettings, registry: NodeRegistry,
                            clock: any MediaClock = SystemClock(), options: RunOptions = RunOptions()) throws(GraphError) {
        var spec = spec
        spec.session = settings
        self.init(graph: try GraphBuilder(registry: registry).build(spec), clock: clock, options: options)
    }

    /// Whether the graph has a recognizer at all.
    public var canTranscribe: Bool { !transcribers.isEmpty }
    public var isTranscribing: Bool { state.withLock { $0.transcribing } }
    public var captionsEnabled: Bool { state.withLock { $0.captionsOn } }
    /// Captions are on screen only while transcription runs and captions are on.
    public var captionsVisible: Bool { state.withLock { $0.transcribing && $0.captionsOn } }
    public var captionLanguage: String { state.withLock { $0.language } }

    /// Which controls the settings show (`hideTranscriptionButton`, `hideClosedCaptionButton`).
    public var controls: SessionControls { SessionControls(settings: settings) }

    /// The caption languages every recognizer in the graph can do (what a language picker offers), in the
    /// first recognizer's order; empty without a recognizer.
    public var supportedCaptionLanguages: [String] {
        guard let first = transcribers.first else { return [] }
        return first.languages.filter { code in transcribers.allSatisfy { $0.languages.contains(code) } }
    }

    /// The state now, as one value.
    public var currentState: TranscriptionSessionState {
        state.withLock { TranscriptionSessionState(transcribing: $0.transcribing, captionsOn: $0.captionsOn, captionLanguage: $0.language) }
    }

    /// Calls `observer` with the new state after every successful start/stop/show/hide/language call, from the
    /// calling task: keep it quick.
    public func observeState(_ observer: @escaping @Sendable (TranscriptionSessionState) -> Void) {
        stateObservers.withLock { $0.append(observer) }
    }

    private func notifyState() {
        let now = currentState
        for observer in stateObservers.withLock({ $0 }) { observer(now) }
    }

    /// Runs the graph on the calling thread until its sources end or `cancel()`.
    public func run(onEvent: @escaping @Sendable (Event) -> Void = { _ in },
                    onWarning: @escaping @Sendable (String) -> Void = { _ in }) throws(GraphError) -> RunSummary {
        try runtime.run(onEvent: { [self] event in
            observeCaption(event)
            onEvent(event)
        }, onWarning: onWarning)
    }

    /// Runs the graph on a thread of its own; events as an `AsyncSequence`.
    public func start() -> (events: AsyncStream<Event>, result: Task<RunSummary, any Error>) {
        let (events, result) = runtime.start()
        let (tapped, continuation) = AsyncStream<Event>.makeStream()
        Task { [self] in
            for await event in events {
                observeCaption(event)
                continuation.yield(event)
            }
            continuation.finish()
        }
        return (tapped, result)
    }

    /// Calls `observer` with every caption while captions are visible, and `.clear` whenever they stop being
    /// visible (transcription stopped or captions hidden). Observers are called on the graph's thread (updates)
    /// or the caller's (clear): keep them quick.
    public func observeCaptions(_ observer: @escaping @Sendable (LiveCaption) -> Void) {
        captionObservers.withLock { $0.append(observer) }
    }

    /// Calls `observer` with every level-meter reading (stream time, reading), on the graph's thread: keep it
    /// quick. Levels flow whatever transcription does (the meter never pauses).
    public func observeLevels(_ observer: @escaping @Sendable (_ time: Double, _ reading: LevelReading) -> Void) {
        levelObservers.withLock { $0.append { time, reading, _ in observer(time, reading) } }
    }

    /// Calls `observer` with every level-meter reading and whose audio it measures (a call participant, a
    /// source's `speaker`; nil for neither), on the graph's thread: keep it quick.
    public func observeSpeakerLevels(_ observer: @escaping @Sendable (_ time: Double, _ reading: LevelReading, _ speaker: String?) -> Void) {
        levelObservers.withLock { $0.append(observer) }
    }

    /// Calls `observer` with the call's participants (in the order they first joined) each time one joins,
    /// leaves, mutes or unmutes, on the thread that changed it: keep it quick.
    public func observeParticipants(_ observer: @escaping @Sendable ([ParticipantPresence]) -> Void) {
        participantObservers.withLock { $0.append(observer) }
    }

    /// Who is in the call now.
    public var participants: [ParticipantPresence] {
        roster.withLock { roster in
            roster.order.map { name in
                let entry = roster.entries[name] ?? (0, false)
                return ParticipantPresence(name: name, connected: entry.connections > 0, muted: entry.muted)
            }
        }
    }

    private func updateRoster(_ name: String, _ change: (inout (connections: Int, muted: Bool)) -> Void) {
        roster.withLock { roster in
            if roster.entries[name] == nil {
                roster.order.append(name)
                roster.entries[name] = (0, false)
            }
            change(&roster.entries[name]!)
        }
        let now = participants
        for observer in participantObservers.withLock({ $0 }) { observer(now) }
    }

    private func observeCaption(_ event: Event) {
        if case .level(let reading) = event.payload {
            for observer in levelObservers.withLock({ $0 }) { observer(event.time, reading, event.speaker) }
            return
        }
        guard case .transcript(let update) = event.payload, captionsVisible else { return }
        notify(.update(update))
    }

    private func notify(_ caption: LiveCaption) {
        for observer in captionObservers.withLock({ $0 }) { observer(caption) }
    }

    /// Applies a state change and sends `.clear` when it hid the captions.
    private func change(_ body: (inout (transcribing: Bool, captionsOn: Bool, language: String)) -> Void) {
        let hidden = state.withLock { state -> Bool in
            let wasVisible = state.transcribing && state.captionsOn
            body(&state)
            return wasVisible && !(state.transcribing && state.captionsOn)
        }
        if hidden { notify(.clear) }
    }

    /// Stops the sources; every output is finalized.
    public func cancel() { runtime.cancel() }

    /// Returns once every node started (devices open, files created), or throws why one could not.
    public func waitUntilStarted() async throws(GraphError) { try await runtime.waitUntilStarted() }

    /// Whether the graph is a call: it has a `participant` block, and participants join with `addParticipant`.
    public var takesParticipants: Bool { runtime.takesParticipants }

    /// Brings a participant into the running call: their branch of the config's `participant` block, fed by
    /// `feed`, in the session's current state (transcription, captions, language). See
    /// `GraphRuntime.addParticipant`.
    @discardableResult
    public func addParticipant(_ feed: ParticipantAudioFeed) throws(GraphError) -> GraphRuntime.ParticipantBranch {
        let branch = try runtime.addParticipant(feed)
        let name = feed.participant
        updateRoster(name) { entry in
            entry.connections += 1
            entry.muted = feed.isMuted
        }
        feed.observeMuted { [weak self] muted in self?.updateRoster(name) { $0.muted = muted } }
        Task { [weak self] in
            _ = await branch.waitUntilEnded()
            self?.updateRoster(name) { entry in
                entry.connections -= 1
                if entry.connections == 0 { entry.muted = false }
            }
        }
        return branch
    }

    /// Ends the call: no one joins any more; the run ends once every participant's branch has.
    public func endCall() { runtime.endCall() }

    /// How far the sources have read.
    public func progress() -> [SourceProgress] { runtime.progress() }

    /// What the runtime has counted for every node so far (time, frames, queues, speech latency); safe from any
    /// thread while the session runs.
    public func statistics() -> GraphStatistics { runtime.statistics() }

    public func startTranscription() async throws(TranscriptionSessionError) {
        guard canTranscribe else { throw .noTranscriber }
        try await deliver(.startTranscription)
        state.withLock { $0.transcribing = true }
        notifyState()
    }

    public func stopTranscription() async throws(TranscriptionSessionError) {
        guard canTranscribe else { throw .noTranscriber }
        try await deliver(.stopTranscription)
        change { $0.transcribing = false }
        notifyState()
    }

    public func showCaptions() async throws(TranscriptionSessionError) {
        try await deliver(.showCaptions)
        state.withLock { $0.captionsOn = true }
        notifyState()
    }

    public func hideCaptions() async throws(TranscriptionSessionError) {
        try await deliver(.hideCaptions)
        change { $0.captionsOn = false }
        notifyState()
    }

    /// Changes the caption language, validated against every recognizer in the graph: a language the loaded model
    /// cannot do is refused (the model is never swapped mid-session). Recognizers switch from their next
    /// utterance on (the whisper engine decodes in the new language from then).
    public func setCaptionLanguage(_ code: String) async throws(TranscriptionSessionError) {
        guard canTranscribe else { throw .noTranscriber }
        if let unable = transcribers.first(where: { !$0.languages.contains(code) }) {
            throw .unsupportedLanguage(code: code, engine: unable.engine, supported: unable.languages, hint: unable.hint)
        }
        try await deliver(.setLanguage(code))
        state.withLock { $0.language = code }
        notifyState()
    }

    /// Sends a command into the graph and waits until every source has passed it on.
    private func deliver(_ command: ControlCommand) async throws(TranscriptionSessionError) {
        let outcome: CommandDelivery = await withCheckedContinuation { continuation in
            // Answered exactly once, whether the graph runs, failed to start or has ended.
            runtime.send(command) { continuation.resume(returning: $0) }
        }
        if outcome == .notRunning { throw .notRunning }
    }
}
