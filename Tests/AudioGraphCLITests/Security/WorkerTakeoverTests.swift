/// Issue 14, item 12: workers stopped too early. A `worker` without `--wait` exited when nothing was claimable,
/// so when another worker died holding a lease, the last live worker exited before that lease expired and the
/// file was never done (a Kubernetes work-queue Job would complete with files not done). A worker now stays
/// while any item is queued or leased, takes over an expired lease, and exits once every file is done or
/// failed. On SQLite, and on PostgreSQL when `AUDIOGRAPH_TEST_POSTGRES_URL` is set.
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("Security: the last worker waits out a dead worker's lease (issue 14 item 12)", .serialized)
struct WorkerTakeoverTests {
    @Test("two workers, one killed (SIGKILL) mid-file: the other takes its file over and exits with every file done",
          arguments: BatchRetrySessionTests.backends)
    func lastWorkerTakesOver(_ backend: String) async throws {
        let dir = try TemporaryFolder()
        let store = try SecurityStore(backend, in: dir)
        // The first worker's file: 8 s of speech and 10 min of silence, so it is still mid-file once the second
        // worker runs too, however late a loaded machine starts that one (4 s, 12 s and 28 s files were once done
        // by then). The second's: 4 s, so the live worker is out of claimable files long before the dead worker's
        // lease runs out.
        let long = try await BatchFixtures.makeLongCall(in: dir)
        let short = try await BatchFixtures.makeCalls(1, in: dir)[0]
        let names = [long, short]
        let sessions = names.map { "takeover-" + $0.dropLast(4) }
        try dir.write("m.jsonl", zip(names, sessions).map { "{\"path\": \"\($0)\", \"session\": \"\($1)\"}" }
            .joined(separator: "\n") + "\n")
        try BatchFixtures.writePipeline(in: dir)
        let enqueued = try await Harness.audiograph(["batch", "m.jsonl", "--pipeline", "p.json", "--store", store.location,
                                                     "--enqueue-only"], in: dir)
        #expect(enqueued.status == 0, "\(enqueued)")
        // The doomed worker reads in real time, so it is mid-file when killed; the survivor reads at full speed (it
        // runs the 10 min file again once the lease, 20 s, runs out; its own 4 s file is done long before that).
        let worker = ["worker", "--store", store.location, "--lease-seconds", "20", "--jobs", "1"]
        let doomed = try BatchFixtures.Background(worker + ["--set", "src.realtime=true"], in: dir)
        #expect(try await BatchFixtures.waitForStatus(in: dir, store: store.location) { $0["running"] as? Int == 1 },
                "\(doomed.report())")
        let survivor = try BatchFixtures.Background(worker, in: dir)
        // The survivor has claimed the short file: running, or already done (a loaded machine's status polls can
        // miss the 4 s it runs; waiting for "running 2" alone then failed with the file done).
        #expect(try await BatchFixtures.waitForStatus(in: dir, store: store.location) {
            $0["running"] as? Int == 2 || ($0["running"] as? Int == 1 && $0["done"] as? Int == 1)
        }, "\(survivor.report())")
        doomed.signal(SIGKILL)
        let killed = try await doomed.exit()
        #expect(killed.signalled, "\(doomed.report())")

        let exit = try await survivor.exit()
        #expect(exit.status == 0 && !exit.signalled, "\(survivor.report())")
        #expect(survivor.report().contains("attempt 2"), "it took the dead worker's file over: \(survivor.report())")
        let status = try BatchFixtures.json(try await Harness.audiograph(["batch", "status", "--store", store.location,
                                                                          "--json"], in: dir).stdout)
        #expect(status["done"] as? Int == 2 && status["queued"] as? Int == 0 && status["running"] as? Int == 0
                    && status["failed"] as? Int == 0, "every file done once the last worker exited: \(status)")
        let counts = try BatchFixtures.storeCounts(store.location)
        for session in sessions {
            #expect(counts[session]?.sessions == 1 && counts[session]?.transcripts == 1, "stored once: \(counts)")
        }
    }
}
