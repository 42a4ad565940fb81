/// Issue 17, "Live captions at scale" (the paged endpoint): answers kept while the store's change stamp stays the
/// same. The cache on its own: a new stamp empties it, a value made under an older stamp is not kept, and the
/// byte budget holds.
import Testing
@testable import AudioGraphServer

@Suite struct StoreAnswerCacheTests {
    private func cache(budget: Int = 100) -> StoreAnswerCache<String, [UInt8]> {
        StoreAnswerCache(budget: budget, cost: { $0.count })
    }

    @Test func aValueIsKeptUntilTheStampChanges() {
        let cache = cache()
        #expect(cache.value(for: "a", stamp: 1) == nil)
        cache.keep([1, 2], for: "a", stamp: 1)
        #expect(cache.value(for: "a", stamp: 1) == [1, 2])
        #expect(cache.value(for: "a", stamp: 2) == nil)
        #expect(cache.count == 0)
        #expect(cache.value(for: "a", stamp: 1) == nil)
    }

    @Test func aValueMadeUnderAnOlderStampIsNotKept() {
        let cache = cache()
        _ = cache.value(for: "a", stamp: 1)
        _ = cache.value(for: "b", stamp: 2)
        cache.keep([1], for: "a", stamp: 1)
        #expect(cache.count == 0)
        #expect(cache.value(for: "a", stamp: 2) == nil)
    }

    @Test func theBudgetHolds() {
        let cache = cache(budget: 10)
        _ = cache.value(for: "a", stamp: 1)
        cache.keep(Array(repeating: 0, count: 6), for: "a", stamp: 1)
        cache.keep(Array(repeating: 0, count: 11), for: "big", stamp: 1)
        #expect(cache.count == 1)
        cache.keep(Array(repeating: 0, count: 6), for: "b", stamp: 1)
        #expect(cache.count == 1)
        #expect(cache.value(for: "b", stamp: 1)?.count == 6)
        #expect(cache.value(for: "a", stamp: 1) == nil)
        cache.keep([1, 2, 3], for: "b", stamp: 1)
        cache.keep([1, 2, 3], for: "c", stamp: 1)
        #expect(cache.count == 2)
    }
}
