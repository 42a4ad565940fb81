@testable import AudioGraphServer
import Testing

/// Issue 40, item 1: the daemon's accepting → draining(inFlight) → stopped, with the check and the count in one
/// value behind one lock (`DaemonAdmission`), tested over every transition. Before, a request read "not
/// refusing", then counted itself; shutdown set "refusing", then polled the count: a request between the two
/// escaped the drain and could open an event stream after the streams were closed.
@Suite struct DaemonAdmissionTests {
    @Test func acceptingCountsEveryRequestAdmitted() {
        var admission = DaemonAdmission()
        #expect(admission.isAccepting && admission.inFlight == 0)
        let first = admission.admit(), second = admission.admit()
        #expect(first && second && admission.inFlight == 2)
        let ended = admission.complete()
        #expect(!ended, "no drain waits")
        #expect(admission.state == .accepting(inFlight: 1))
    }

    @Test func aDrainRefusesNewRequestsAndWaitsForTheAdmittedOnes() {
        var admission = DaemonAdmission()
        _ = admission.admit()
        _ = admission.admit()
        let idle = admission.beginDrain()
        #expect(!idle, "two requests still in flight")
        #expect(admission.state == .draining(inFlight: 2))
        let late = admission.admit()
        #expect(!late, "a request after the drain began is refused (503)")
        #expect(admission.inFlight == 2, "and not counted")
        let first = admission.complete()
        let last = admission.complete()
        #expect(!first && last, "the last request in flight ends the drain")
        #expect(admission.state == .draining(inFlight: 0))
        let again = admission.beginDrain()
        #expect(!again, "a second shutdown finds the drain under way")
        admission.stop()
        let afterStop = admission.admit()
        let completeAfterStop = admission.complete()
        #expect(admission.state == .stopped && !afterStop && !completeAfterStop && admission.inFlight == 0)
    }

    @Test func anIdleDaemonDrainsAtOnce() {
        var admission = DaemonAdmission()
        let idle = admission.beginDrain()
        let late = admission.admit()
        #expect(idle && !admission.isAccepting && !late)
    }

    /// Every interleaving of one request's admit/complete with shutdown's beginDrain: the request is either
    /// refused, or counted so the drain waits for its completion; a drain never ends with it in flight.
    @Test func noRequestEscapesTheDrainInAnyOrder() {
        enum Step { case admit, complete, drain }
        let orders: [[Step]] = [[.admit, .complete, .drain], [.admit, .drain, .complete], [.drain, .admit, .complete]]
        for order in orders {
            var admission = DaemonAdmission()
            var admitted = false
            var drainedWith: Int?
            var drainEnded = false
            for step in order {
                switch step {
                case .admit: admitted = admission.admit()
                case .complete: if admitted { drainEnded = admission.complete() || drainEnded }
                case .drain:
                    drainEnded = admission.beginDrain()
                    drainedWith = admission.inFlight
                }
            }
            #expect(drainEnded, "\(order): the drain ends")
            #expect(admission.inFlight == 0, "\(order)")
            if order.first == .drain { #expect(!admitted, "\(order): refused after the drain began") }
            if order == [.admit, .drain, .complete] { #expect(drainedWith == 1, "the admitted request is waited for") }
        }
    }
}
