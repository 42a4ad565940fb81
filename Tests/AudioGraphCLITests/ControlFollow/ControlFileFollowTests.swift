import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// Issue 18, item 6 (follow control input): a regular `--control` file is followed like `tail -f` (a line
/// appended during the run is read), and a FIFO is opened again after its writer closes (two writers in turn).
@Suite("audiograph run --control: following")
struct ControlFileFollowTests {
    /// A 30-second tone read at 1x, printing level events: it runs until the test stops it.
    static func start(control: String, in dir: TemporaryFolder) async throws
        -> (collector: SessionControlTests.LineCollector, exit: Task<Harness.Exit, any Error>) {
        try await Harness.makeWAV("long.wav", in: dir, sampleRate: 16000, channels: 1, seconds: 30)
        try dir.write("p.json", """
            {"version": 1, "nodes": {"src": {"type": "file-source", "path": "long.wav", "realtime": true},
             "level": {"type": "level-meter", "intervalMs": 100}, "out": {"type": "wav-sink", "path": "out.wav"}},
             "links": ["src -> level -> out"]}
            """)
        let process = ChildProcess()
        process.executableURL = try Harness.binary()
        process.arguments = ["run", "p.json", "--events", "jsonl", "--control", control]
        process.currentDirectoryURL = dir.url
        process.standardInput = FileHandle.nullDevice
        let stdout = Pipe()
        process.standardOutput = stdout
        process.standardError = FileHandle.nullDevice
        let collector = SessionControlTests.LineCollector(stdout)
        return (collector, Task { try await Harness.runToExit(process) })
    }

    static func isAnswer(_ command: String) -> ([String: Any]) -> Bool {
        { ["ack", "error"].contains($0["type"] as? String ?? "") && $0["command"] as? String == command }
    }

    @Test("a regular file: a stop appended after the run started is read and ends the run")
    func regularFileIsFollowed() async throws {
        let dir = try TemporaryFolder()
        try dir.write("control.jsonl", #"{"command":"hideCaptions"}"# + "\n")
        let (collector, exit) = try await Self.start(control: "control.jsonl", in: dir)
        // The first line was read (and the file's end reached) before the append.
        #expect(await collector.waitFor("the first answer", Self.isAnswer("hideCaptions")))
        #expect(await collector.waitFor("a level event") { $0["type"] as? String == "level" })
        let handle = try #require(FileHandle(forWritingAtPath: dir.path("control.jsonl")))
        try handle.seekToEnd()
        handle.write(Data((#"{"command":"stop"}"# + "\n").utf8))
        try handle.close()
        #expect(await collector.waitFor("the stop ack", Self.isAnswer("stop")))
        let status = try await exit.value
        #expect(status.status == 0 && !status.timedOut, "\(status)")
    }

    @Test("a FIFO written twice, by two writers in turn: both lines are read")
    func fifoIsReopened() async throws {
        let dir = try TemporaryFolder()
        let fifo = dir.path("control.fifo")
        #expect(mkfifo(fifo, 0o600) == 0)
        let (collector, exit) = try await Self.start(control: "control.fifo", in: dir)
        func write(_ line: String) async throws {
            // Opening without a reader fails with ENXIO: wait until the run has the FIFO open (again).
            var descriptor: Int32 = -1
            let opened = await eventually {
                descriptor = open(fifo, O_WRONLY | O_NONBLOCK)
                return descriptor >= 0
            }
            try #require(opened, "the run never opened \(fifo) for reading")
            let bytes = Array((line + "\n").utf8)
            #expect(Glibc.write(descriptor, bytes, bytes.count) == bytes.count)
            close(descriptor)
        }
        try await write(#"{"command":"hideCaptions"}"#)
        #expect(await collector.waitFor("the first answer", Self.isAnswer("hideCaptions")))
        try await write(#"{"command":"stop"}"#)
        #expect(await collector.waitFor("the stop ack", Self.isAnswer("stop")))
        let status = try await exit.value
        #expect(status.status == 0 && !status.timedOut, "\(status)")
    }
}
