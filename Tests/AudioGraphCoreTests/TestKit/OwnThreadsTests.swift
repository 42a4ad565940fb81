@testable import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// `.ownThreads`: tests that compute for long run outside libdispatch's worker pool, so they cannot starve the
/// rest of the process.
@Suite(.ownThreads) struct OwnThreadsTests {
    @Test func aSynchronousTestRunsOnAThreadOfItsOwn() {
        #expect(Thread.current.name == OwnThreadExecutor.threadName)
    }

    /// An asynchronous test starts there, and so do the child tasks it starts. (After a suspension the runtime may
    /// resume it on a pool thread: seen once in 1860 runs, after `Task.sleep`. A test that computes after it waits
    /// computes in a child task or a synchronous test.)
    @Test func anAsynchronousTestAndItsChildTasksStartThere() async throws {
        #expect(currentThreadName() == OwnThreadExecutor.threadName)
        async let child = currentThreadName()
        #expect(await child == OwnThreadExecutor.threadName)
    }

    /// As many busy threads as cores, each spinning until a task on the global pool has run. On pool threads they
    /// would hold every worker libdispatch allows, and the pool task would run only after they gave up.
    @Test func busyThreadsLeaveThePoolFree() async {
        let poolTaskRan = Flag()
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let gaveUp = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<cores {
                group.addTask { spin(until: poolTaskRan, seconds: 60) }
            }
            Task.detached { poolTaskRan.set() }
            return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
        }
        #expect(gaveUp == 0, "\(gaveUp) of \(cores) busy threads waited 60 s for the pool")
    }

    /// One test a core at a time: a waiter gets a slot when one is released, in the order they came.
    @Test func slotsAreHandedOnInOrder() async {
        let slots = ComputeSlots(1)
        await slots.acquire()
        let order = Order()
        async let first: Void = { await slots.acquire(); order.append(1); slots.release() }()
        #expect(await eventually { slots.waiters == 1 })
        async let second: Void = { await slots.acquire(); order.append(2); slots.release() }()
        #expect(await eventually { slots.waiters == 2 })
        #expect(order.values.isEmpty, "a slot was taken while the only one was held")
        slots.release()
        _ = await (first, second)
        #expect(order.values == [1, 2])
    }
}

private func currentThreadName() -> String? { Thread.current.name }

private final class Order: Sendable {
    private let list = Mutex<[Int]>([])
    func append(_ value: Int) { list.withLock { $0.append(value) } }
    var values: [Int] { list.withLock { $0 } }
}

private final class Flag: Sendable {
    private let value = Atomic<Bool>(false)
    func set() { value.store(true, ordering: .releasing) }
    var isSet: Bool { value.load(ordering: .acquiring) }
}

/// Computes until `flag` is set (true) or `seconds` have passed (false), never yielding its thread.
private func spin(until flag: Flag, seconds: Double) -> Bool {
    let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(seconds * 1e9)
    while DispatchTime.now().uptimeNanoseconds < deadline {
        if flag.isSet { return true }
    }
    return false
}
