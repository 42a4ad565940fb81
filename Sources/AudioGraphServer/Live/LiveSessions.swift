import AudioGraphCore
import AudioGraphSessions
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
    @discardableResult
    public func add(id: String, room: String, participants: [String]) -> LiveSession {
        let session = LiveSession(id: id, room: room, participants: participants)
        sessions.withLock { $0.append(session) }
        return session
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
/// A viewer who joins late first gets what is on screen now: the events since the last `clear` (at most
/// `replayLimit` of them, the newest).
public final class LiveSession: Sendable {
    public let id: String
    public let room: String
    public let participants: [String]

    public static let replayLimit = 64

    private struct State {
        var viewers: [EventStream] = []
        var nextEventID = 1
        var onScreen: [(id: Int, data: String)] = []
        var ended = false
    }

    private let state = Mutex(State())

    init(id: String, room: String, participants: [String]) {
        self.id = id
        self.room = room
        self.participants = participants
    }

    /// Adds a viewer: it gets what is on screen now, then every later event.
    public func subscribe(_ stream: EventStream) {
        let ended = state.withLock { state -> Bool in
            guard !state.ended else { return true }
            for event in state.onScreen { stream.send(event: "caption", id: event.id, data: event.data) }
            state.viewers.append(stream)
            return false
        }
        if ended {
            stream.send(event: "end", data: "{}")
            stream.close()
        }
    }

    /// Sends a caption to every viewer.
    public func publish(_ caption: LiveCaption) {
        let data = JSONWriter.compact(.object(Self.json(caption)))
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
