import AudioGraphCore
import Foundation

/// A condition that did not hold before its deadline (`eventually(_:timeout:every:_:)`). Thrown from a test, it
/// fails the test with this description.
public struct EventuallyTimedOut: Error, CustomStringConvertible {
    /// What was waited for.
    public let what: String
    public let timeout: Double

    public var description: String { "timed out after \(JSONWriter.format(number: timeout)) s waiting for \(what)" }
}

/// Waits for a condition by polling it: every `interval` until it holds or `timeout` seconds have passed, then
/// once more. Whether it held. Tests synchronize on conditions with this (a state reached, a line printed, a file
/// written), never on fixed sleeps; the timeout is generous because it is only reached when something is wrong.
///
/// ```swift
/// #expect(await eventually { recorder.finals.count == 2 })
/// ```
public func eventually(timeout: Double = 60, every interval: Duration = .milliseconds(10),
                       _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: interval)
    }
    return try await condition()
}

/// `eventually`, throwing `EventuallyTimedOut` naming `what` when the condition never holds:
///
/// ```swift
/// try await eventually("the first final") { !recorder.finals.isEmpty }
/// ```
public func eventually(_ what: String, timeout: Double = 60, every interval: Duration = .milliseconds(10),
                       _ condition: () async throws -> Bool) async throws {
    guard try await eventually(timeout: timeout, every: interval, condition) else {
        throw EventuallyTimedOut(what: what, timeout: timeout)
    }
}

/// `eventually` for synchronous code (a synchronous test, a thread of its own): blocks the calling thread between
/// polls, so never call it from Swift concurrency (an async test uses `eventually`).
public func blockingEventually(timeout: Double = 60, every interval: Double = 0.01, _ condition: () -> Bool) -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        Thread.sleep(forTimeInterval: interval)
    }
    return condition()
}

