import AudioGraphStore
import Synchronization

/// Answers made from the store, kept while the store's change stamp (`StoreChangeStamping`) stays the same:
/// the first lookup under a new stamp drops everything kept under the old one. What is kept is what the access
/// rule gave one user (the key names the user), so a hit answers exactly what the store would have.
///
/// Bounded by `budget` (the sum of the values' `cost`): when a value would pass it, everything is dropped
/// first (pages are asked in bursts; the next ones are kept again).
final class StoreAnswerCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct State {
        var stamp: UInt64?
        var entries: [Key: Value] = [:]
        var cost = 0
    }

    private let state = Mutex(State())
    private let budget: Int
    private let cost: @Sendable (Value) -> Int

    init(budget: Int, cost: @escaping @Sendable (Value) -> Int) {
        self.budget = budget
        self.cost = cost
    }

    /// The value kept for `key` under `stamp`; a new stamp empties the cache first.
    func value(for key: Key, stamp: UInt64) -> Value? {
        state.withLock { state in
            if state.stamp != stamp {
                state = State(stamp: stamp)
                return nil
            }
            return state.entries[key]
        }
    }

    /// Keeps `value` for `key` when the cache is still at `stamp` (read before the value was made); a value
    /// larger than the whole budget is not kept.
    func keep(_ value: Value, for key: Key, stamp: UInt64) {
        let size = cost(value)
        guard size <= budget else { return }
        state.withLock { state in
            guard state.stamp == stamp else { return }
            if state.cost + size > budget { state = State(stamp: stamp) }
            if let old = state.entries.updateValue(value, forKey: key) { state.cost -= cost(old) }
            state.cost += size
        }
    }

    /// Entries kept now (for tests).
    var count: Int { state.withLock { $0.entries.count } }
}
