// embedding-demo: audiograph as a library. Builds a graph in code (no JSON), with a node type of its own
// (`clip-counter`, from the ClipCounter target) registered next to the built-ins, runs it on a recording and
// reads the events as an AsyncSequence.
//
//     swift run embedding-demo [AUDIO_FILE] [--threshold DB]
//
// AUDIO_FILE defaults to the bundled call (examples/audio/call.flac); DB (dBFS, default -10) is the level at
// or above which the clip counter reports a passage.
import AudioGraph
import ClipCounter
import Foundation

/// examples/audio/call.flac, found from this source file (examples/embedding/Sources/embedding-demo/main.swift),
/// so `swift run` works from any folder.
let bundledAudio = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("audio/call.flac").path

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("embedding-demo: \(message)\n".utf8))
    exit(status)
}

// Arguments.
var audioPath = bundledAudio
var thresholdDb = -10.0
var arguments = CommandLine.arguments.dropFirst()
while let argument = arguments.popFirst() {
    switch argument {
    case "--threshold":
        guard let value = arguments.popFirst().flatMap(Double.init) else { fail("--threshold needs a number in dBFS", status: 64) }
        thresholdDb = value
    case "--help", "-h":
        print("usage: embedding-demo [AUDIO_FILE] [--threshold DB]")
        exit(0)
    default:
        audioPath = argument
    }
}

do {
    // 1. The node types this app may use: the built-ins plus our own. A registry is a plain value; nothing
    //    global changes, and registering a type name twice is an error.
    var registry = NodeRegistry.builtins
    try registry.register(ClipCounterNode.self, origin: "embedding-demo")

    // 2. The graph, in code: the same nodes and links a config file would hold. Parameters are validated
    //    against each type's declaration exactly as for a file (errors name `nodes.<id>.<parameter>`).
    let spec = GraphSpec(
        nodes: [
            NodeSpec(id: "src", type: "file-source", parameters: ["path": .string(audioPath)]),
            NodeSpec(id: "rs", type: "resampler", parameters: ["sampleRate": 16000, "channels": 1]),
            NodeSpec(id: "level", type: "level-meter", parameters: ["intervalMs": 500]),
            NodeSpec(id: "clip", type: "clip-counter",
                     parameters: ["thresholdDb": .number(thresholdDb), "minGapMs": 250]),
        ],
        links: try LinkSpec.chain("src -> rs -> level -> clip"),
        baseDirectory: FileManager.default.currentDirectoryPath)
    let graph = try GraphBuilder(registry: registry).build(spec)
    print(graph.summary)

    // 3. Run it on a thread of its own; the events arrive as an AsyncSequence that ends with the run.
    let (events, result) = GraphRuntime(graph: graph).start()
    var levels = 0
    var loudest: (time: Double, db: Double)?
    var runs: [ClipRun] = []
    var clipSummary: ClipSummary?
    for await event in events {
        switch event.payload {
        case .level(let reading):
            levels += 1
            let db = reading.rmsDb.max() ?? -120
            if db > loudest?.db ?? -.infinity { loudest = (event.time, db) }
        case .custom:
            if let run = ClipRun(event) {
                runs.append(run)
                print(String(format: "clip  %6.2f–%6.2f s  %5d samples  peak %6.1f dBFS",
                             run.start, run.end, run.frames, run.peakDb))
            } else if let summary = ClipSummary(event) {
                clipSummary = summary
            }
        default:
            break
        }
    }
    let summary = try await result.value

    // 4. A short summary.
    let seconds = summary.sources.map(\.seconds).max() ?? 0
    print(String(format: "audio: %.1f s in %.2f s%@", seconds, summary.wallSeconds,
                 summary.interrupted ? " (interrupted)" : ""))
    if let loudest {
        print(String(format: "levels: %d readings, loudest %.1f dBFS RMS at %.1f s", levels, loudest.db, loudest.time))
    }
    if let clipSummary {
        print(String(format: "clip-counter: %d passages at or above %.1f dBFS (%d samples), peak %.1f dBFS",
                     clipSummary.runs, thresholdDb, clipSummary.frames, clipSummary.peakDb))
    }
} catch let error as GraphError {
    fail(error.description, status: error.code.exitCode)
} catch {
    fail("\(error)", status: 70)
}
