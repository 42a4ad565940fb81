import Synchronization

/// Fans values out to any number of `AsyncStream` subscribers; a new subscriber first gets the latest value.
final class Broadcast<Value: Sendable>: Sendable {
    private struct State {
        var latest: Value
        var subscribers: [Int: AsyncStream<Value>.Continuation] = [:]
        var nextID = 0
    }

    private let state: Mutex<State>

    init(_ initial: Value) {
        state = Mutex(State(latest: initial))
    }

    var latest: Value { state.withLock { $0.latest } }

    func send(_ value: Value) {
        let subscribers = state.withLock { state -> [AsyncStream<Value>.Continuation] in
            state.latest = value
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.yield(value) }
    }

    func subscribe() -> AsyncStream<Value> {
        let (stream, continuation) = AsyncStream<Value>.makeStream(bufferingPolicy: .bufferingNewest(64))
        let id = state.withLock { state -> Int in
            let id = state.nextID
            state.nextID += 1
            state.subscribers[id] = continuation
            continuation.yield(state.latest)
            return id
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
        }
        return stream
    }

    func finish() {
        let subscribers = state.withLock { state -> [AsyncStream<Value>.Continuation] in
            defer { state.subscribers.removeAll() }
            return Array(state.subscribers.values)
        }
        for subscriber in subscribers { subscriber.finish() }
    }
}
