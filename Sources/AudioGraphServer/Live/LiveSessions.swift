import AudioGraphCore
import Foundation
import Synchronization

/// The sessions running in this process whose captions can be watched over `GET /v1/sessions/{id}/captions`.
///
/// A session id is not unique: two runs (say Alice's and Bob's, each with its own participants) may use the
/// same one at once. Each run is a `LiveSession` of its own, and access follows the run: a user watches only a
/// run they take part in, and never learns of the others.
public final class LiveSessions: Sendable {
    /// The live runs, oldest first.
    private let sessions = Mutex<[LiveSession]>([])

    public init() {}

    /// Registers a running session. Runs already live with the same id stay live (their participants keep
    /// watching them).
    /// With a `controller`, its participants may steer it over the control API.
    @discardableResult
    public func add(id: String, room: String, participants: [String], controller: LiveSessionController? = nil) -> LiveSession {
        let session = LiveSession(id: id, room: room, participants: participants, controller: controller)
        sessions.withLock { $0.append(session) }
        return session
    }

    /// Registers a running session (a `TranscriptionSession`, or any `SteerableSession`): its captions and its state changes (`state` events) go to the
    /// live session's viewers, and its participants may steer it over the control API as its settings allow.
    @discardableResult
    public func attach(_ session: any SteerableSession, id: String, room: String, participants: [String]) -> LiveSession {
        let live = add(id: id, room: room, participants: participants, controller: LiveSessionController(session: session))
        session.observeCaptions { caption in live.publish(caption) }
        session.observeState { state in live.publishState(state) }
        session.observeSpeakerLevels { time, reading, speaker in live.publishLevel(time: time, level: reading.level, speaker: speaker) }
        session.observeParticipants { participants in live.publishParticipants(participants) }
        return live
    }

    /// Ends a session: its viewers get `end` and it leaves the list.
    public func remove(_ session: LiveSession) {
        sessions.withLock { sessions in sessions.removeAll { $0 === session } }
        session.end()
    }

    /// The run with session id `id` that `user` takes part in: the newest, when they take part in several.
    public func session(id: String, for user: String) -> LiveSession? {
        sessions.withLock { $0 }.last { $0.id == id && $0.participants.contains(user) }
    }

    /// The runs `user` takes part in, by id (one per id: the newest, as `session(id:for:)` picks).
    public func list(for user: String) -> [LiveSession] {
        var newest: [String: LiveSession] = [:]
        for session in sessions.withLock({ $0 }) where session.participants.contains(user) { newest[session.id] = session }
        return newest.values.sorted { $0.id < $1.id }
    }

    /// How many sessions are live now.
    public var count: Int { sessions.withLock { $0.count } }

    /// Ends every session (server shutdown).
    public func endAll() {
        for session in sessions.withLock({ sessions in defer { sessions.removeAll() }; return sessions }) {
            session.end()
        }
    }
}

/// One live session's caption feed: fans caption events out to its viewers' event streams.
///
/// A viewer who joins late first gets the session's state (a `state` event, when it can be steered), then what
/// is on screen now: the events since the last `clear` (at most `replayLimit` of them, the newest).
public final class LiveSession: Sendable {
    public let id: String
    public let room: String
    public let participants: [String]
    /// What steers it (nil: captions only, no control API).
    public let controller: LiveSessionController?

    public static let replayLimit = 64

    private struct State {
        var viewers: [EventStream] = []
        var nextEventID = 1
        var onScreen: [(id: Int, data: String)] = []
        var ended = false
        /// The data of the newest `state` event.
        var lastState: String?
        /// The stream time of the last level event sent, per speaker ("" for none).
        var lastLevelTime: [String: Double] = [:]
        /// The data of the newest `participants` event (a call).
        var lastParticipants: String?
    }

    private let state = Mutex(State())

    init(id: String, room: String, participants: [String], controller: LiveSessionController? = nil) {
        self.id = id
        self.room = room
        self.participants = participants
        self.controller = controller
        if let controller {
            let data = JSONWriter.compact(.object(controller.stateEvent(controller.session.currentState)))
            state.withLock { $0.lastState = data }
        }
    }

    /// Adds a viewer: it gets what is on screen now, then every later event. A viewer reconnecting with the id
    /// of the last caption event it got (`Last-Event-ID`) gets only those after it, so nothing is shown twice.
    public func subscribe(_ stream: EventStream, after lastEventID: Int? = nil) {
        let ended = state.withLock { state -> Bool in
            guard !state.ended else { return true }
            if let data = state.lastState { stream.send(event: "state", data: data) }
            if let data = state.lastParticipants { stream.send(event: "participants", data: data) }
            for event in state.onScreen where event.id > (lastEventID ?? 0) {
                stream.send(event: "caption", id: event.id, data: event.data)
            }
            state.viewers.append(stream)
            return false
        }
        if ended {
            stream.send(event: "end", data: "{}")
            stream.close()
        }
    }

    /// Sends a caption to every viewer, stamped with when it was published (`published`: Unix time in seconds,
    /// to the microsecond; `now` by default), so a viewer can tell how late it arrived.
    public func publish(_ caption: LiveCaption, at published: Double = Date().timeIntervalSince1970) {
        var object = Self.json(caption)
        object["published"] = .number((published * 1_000_000).rounded() / 1_000_000)
        let data = JSONWriter.compact(.object(object))
        state.withLock { state in
            guard !state.ended else { return }
            let id = state.nextEventID
            state.nextEventID += 1
            if case .clear = caption { state.onScreen.removeAll() }
            state.onScreen.append((id, data))
            if state.onScreen.count > Self.replayLimit { state.onScreen.removeFirst() }
            state.viewers.removeAll { $0.isClosed }
            for viewer in state.viewers { viewer.send(event: "caption", id: id, data: data) }
        }
    }

    /// At most this many level events a second reach viewers (by stream time): a meter needs no more.
    public static let levelsPerSecond = 10.0

    /// Sends a level-meter reading (`event: level`, `{"time":…,"level":0…1}`, and `"speaker"` when the reading
    /// is of a call participant's or a named source's audio) to every viewer, at most `levelsPerSecond` a second
    /// of stream time per speaker; nothing is kept for later viewers.
    public func publishLevel(time: Double, level: Double, speaker: String? = nil) {
        state.withLock { state in
            guard !state.ended else { return }
            let key = speaker ?? ""
            if let last = state.lastLevelTime[key], time - last < 1 / Self.levelsPerSecond, time >= last { return }
            state.lastLevelTime[key] = time
            state.viewers.removeAll { $0.isClosed }
            guard !state.viewers.isEmpty else { return }
            let rounded = (level * 1000).rounded() / 1000
            var object: JSONObject = ["time": .number((time * 1000).rounded() / 1000), "level": .number(rounded)]
            if let speaker { object["speaker"] = .string(speaker) }
            let data = JSONWriter.compact(.object(object))
            for viewer in state.viewers { viewer.send(event: "level", data: data) }
        }
    }

    /// Sends who is in the call (`event: participants`, `{"participants":[{"name","connected","muted"}]}`) to
    /// every viewer; a viewer who joins later gets the newest first, after the state.
    public func publishParticipants(_ participants: [ParticipantPresence]) {
        let list = participants.map { presence -> JSONValue in
            .object(["name": .string(presence.name), "connected": .bool(presence.connected), "muted": .bool(presence.muted)])
        }
        let data = JSONWriter.compact(.object(["participants": .array(list)]))
        state.withLock { state in
            guard !state.ended else { return }
            state.lastParticipants = data
            state.viewers.removeAll { $0.isClosed }
            for viewer in state.viewers { viewer.send(event: "participants", data: data) }
        }
    }

    /// Sends the session's new state (`event: state`) to every viewer; a viewer who joins later gets the newest
    /// first.
    public func publishState(_ sessionState: TranscriptionSessionState) {
        guard let controller else { return }
        let data = JSONWriter.compact(.object(controller.stateEvent(sessionState)))
        state.withLock { state in
            guard !state.ended else { return }
            let id = state.nextEventID
            state.nextEventID += 1
            state.lastState = data
            state.viewers.removeAll { $0.isClosed }
            for viewer in state.viewers { viewer.send(event: "state", id: id, data: data) }
        }
    }

    /// Viewers now watching.
    public var viewerCount: Int { state.withLock { state in state.viewers.filter { !$0.isClosed }.count } }

    /// Whether the session has ended (`LiveSessions.remove`, or the server shut down).
    public var isEnded: Bool { state.withLock { $0.ended } }

    /// Sends `end` to every viewer and closes their streams. Idempotent.
    public func end() {
        let viewers = state.withLock { state -> [EventStream] in
            guard !state.ended else { return [] }
            state.ended = true
            defer { state.viewers.removeAll() }
            return state.viewers
        }
        for viewer in viewers {
            viewer.send(event: "end", data: "{}")
            viewer.close()
        }
    }

    /// The `data` of a caption event: `{"type":"partial"|"final",segment,revision,start,end,text,…}` or
    /// `{"type":"clear"}`.
    static func json(_ caption: LiveCaption) -> JSONObject {
        switch caption {
        case .clear:
            return ["type": "clear"]
        case .update(let update):
            var object: JSONObject = ["type": .string(update.isFinal ? "final" : "partial")]
            for (key, value) in update.json.entries where key != "final" { object[key] = value }
            return object
        }
    }
}
