import AudioGraphCore
import Foundation
import Synchronization

/// The live calls of this process, as the HTTP server's participant audio endpoint reaches them
/// (`GET /v1/sessions/{id}/participants/{participant}/audio`): each stream that opens becomes a participant's
/// branch of the call's running graph (`TranscriptionSession.addParticipant`), fed as the socket reads.
public final class CallAudioIngest: ParticipantAudioIngest {
    private struct Call {
        let session: TranscriptionSession
        let access: ParticipantAudioAccess
        /// Participants streaming now.
        var streaming: Set<String> = []
    }

    private let calls = Mutex<[String: Call]>([:])

    public init() {}

    /// Takes audio for `session`, a call (its graph has a `participant` block) running as `sessionID`, with the
    /// access its settings give (`participants`, `relays`, `maxParticipants`).
    public func register(_ session: TranscriptionSession, sessionID: String, settings: SessionSettings) {
        guard session.takesParticipants else { return }
        calls.withLock { $0[sessionID] = Call(session: session, access: ParticipantAudioAccess(settings: settings)) }
    }

    /// Takes no more audio for `sessionID` (the call ended); streams already open go on until they close.
    public func unregister(sessionID: String) {
        _ = calls.withLock { $0.removeValue(forKey: sessionID) }
    }

    public func access(sessionID: String) -> ParticipantAudioAccess? {
        calls.withLock { $0[sessionID]?.access }
    }

    public func openStream(sessionID: String, participant: String,
                           format: AudioFormat) throws(ParticipantAudioError) -> any ParticipantAudioStream {
        let claimed = calls.withLock { calls -> Result<TranscriptionSession, ParticipantAudioError> in
            guard var call = calls[sessionID] else { return .failure(.noSuchSession) }
            guard !call.streaming.contains(participant) else {
                return .failure(.notAccepting("\(participant) is sending already; close that stream first"))
            }
            guard call.streaming.count < call.access.maxParticipants else {
                return .failure(.tooManyParticipants(limit: call.access.maxParticipants))
            }
            call.streaming.insert(participant)
            calls[sessionID] = call
            return .success(call.session)
        }
        let session = try claimed.get()
        let release: @Sendable () -> Void = { [weak self] in
            self?.calls.withLock { calls in _ = calls[sessionID]?.streaming.remove(participant) }
        }
        let feed = ParticipantAudioFeed(participant: participant, format: format)
        do {
            try session.addParticipant(feed)
        } catch {
            release()
            if error.code == .invalidConfig { throw .unsupportedFormat(error.message) }
            throw .notAccepting(error.message)
        }
        return FeedStream(feed: feed, release: release)
    }

    /// A participant's stream: the socket's side of their feed.
    private final class FeedStream: ParticipantAudioStream {
        let feed: ParticipantAudioFeed
        let release: @Sendable () -> Void

        init(feed: ParticipantAudioFeed, release: @escaping @Sendable () -> Void) {
            self.feed = feed
            self.release = release
        }

        func write(_ samples: [Float]) -> Bool { feed.write(samples) }
        func setMuted(_ muted: Bool) { feed.setMuted(muted) }

        func close() {
            feed.close()
            release()
        }
    }
}
