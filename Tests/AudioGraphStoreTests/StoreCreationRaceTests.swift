/// Several writers creating one new store at once (`batch --jobs 2` onto a store that is not there yet). The
/// check that refuses another program's database read the schema version and the table list in two statements:
/// a writer that committed the schema between them made its own new store look like a foreign database ("is a
/// SQLite database but not an audiograph transcript store (it has tables of its own)"), and a file of the batch
/// failed. Seen in `benchmarks/batch.sh --smoke` under load.
@testable import AudioGraphStore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

@Suite struct StoreCreationRaceTests {
    /// Four threads open one missing path for writing at the same moment, on fresh paths over and over; every open
    /// must succeed and leave a store at the current schema version.
    @Test func writersCreatingOneNewStoreAtOnceAllOpenIt() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let writers = 4
        for attempt in 0..<60 {
            let path = folder.path("race-\(attempt).sqlite")
            let failures = Mutex<[String]>([])
            let ready = DispatchGroup()
            let done = DispatchGroup()
            let go = DispatchSemaphore(value: 0)
            for _ in 0..<writers {
                ready.enter()
                done.enter()
                Thread {
                    ready.leave()
                    go.wait()
                    do {
                        let store = try SQLiteTranscriptStore(path: path)
                        store.close()
                    } catch {
                        failures.withLock { $0.append("\(error)") }
                    }
                    done.leave()
                }.start()
            }
            ready.wait()
            for _ in 0..<writers { go.signal() }
            done.wait()
            let failed = failures.withLock { $0 }
            #expect(failed.isEmpty, "attempt \(attempt): \(failed.count) of \(writers) opens failed: \(failed)")
            if !failed.isEmpty { return }
            let store = try SQLiteTranscriptStore(path: path, create: false)
            #expect(try store.storedSchemaVersion() == SQLiteTranscriptStore.schemaVersion)
            store.close()
        }
    }

    /// The refusal the race tripped still holds: another program's database (tables, schema version 0) is refused
    /// and left as it was.
    @Test func anotherProgramsDatabaseIsStillRefused() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-store-tests")
        let path = folder.path("theirs.sqlite")
        let theirs = try SQLiteDatabase(path: path)
        try theirs.execute("CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')")
        theirs.close()
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect { try SQLiteTranscriptStore(path: path) } throws: { ($0 as? TranscriptsError)?.code == "no_store" }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }
}
