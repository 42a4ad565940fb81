import AudioGraph
import Foundation

/// One `audiograph transcribe`: the files through the runner, a line per file, the summary (or --json).
struct TranscribeRun {
    let pipeline: TranscriptionPipeline
    let runner: BatchRunner
    let items: [WorkItem]
    let jobs: Int
    let json: Bool
    let quiet: Bool
    /// The engine that transcribes, and its model file (for the JSON summary).
    var engine: String = RecognizerEngines.auto
    var model: String? = nil

    func run() throws(GraphError) -> Int32 {
        let progress = BatchProgress(total: items.count, enabled: !quiet && Console.stderrIsTerminal)
        let signals = InterruptSignals(batch: runner.control)
        defer { withExtendedLifetime(signals) {} }
        let started = Date()
        progress.start()
        let results = runner.runAll(items, jobs: jobs, onStart: { _ in progress.began() }, onFinish: { result in
            progress.finished(failed: BatchOutcome(result) == .failed)
            guard !quiet else { return }
            progress.clear()
            for line in lines(for: result) { printError(line) }
        })
        progress.stop()
        let tally = BatchTally(results: results, of: items.count, wallSeconds: Date().timeIntervalSince(started))
        if json { printOut(JSONWriter.compact(summary(results, tally: tally))) }
        if signals.count > 0 || tally.interrupted > 0 { return GraphError.Code.interrupted.exitCode }
        // One file: its own error and exit code, as `run` would give.
        if items.count == 1, let error = results.first?.error { throw error }
        if !quiet || tally.failed > 0 {
            let factor = tally.realTimeFactor
            printError("audiograph: transcribed \(tally.done) of \(tally.files) file\(tally.files == 1 ? "" : "s")"
                + (tally.failed > 0 ? ", \(tally.failed) failed" : "")
                + String(format: ": %.1f s of audio in %.2f s (%@ real time)", tally.audioSeconds, tally.wallSeconds,
                         RealTimeFactor.format(factor)))
            if items.count > 1 {
                for failure in tally.failures { printError("audiograph: failed: \(failure.path): \(failure.error)") }
            }
        }
        return tally.failed > 0 ? BatchCommand.someFailedExitCode : 0
    }

    /// "wrote a.srt, a.vtt (…)", a note for a caption file left without a cue, or the failure.
    func lines(for result: BatchFileResult) -> [String] {
        // One file's error is reported once, as the command's error.
        if let error = result.error { return items.count == 1 ? [] : ["audiograph: failed: \(result.item.path): \(error)"] }
        if result.interrupted { return ["audiograph: interrupted: \(result.item.path) (outputs finalized)"] }
        let outputs = pipeline.outputPaths(for: result.item.path)
        var lines = [String(format: "audiograph: %@ → %@ (%.1f s of audio in %.2f s)", result.item.path,
                            outputs.joined(separator: ", "), result.audioSeconds, result.wallSeconds)]
        for path in emptyCaptionFiles(outputs) {
            lines.append("audiograph: note: \(path) has no cue: the recognizer heard no speech in \(result.item.path)")
        }
        return lines
    }

    /// The SRT and WebVTT outputs that hold no cue.
    func emptyCaptionFiles(_ outputs: [String]) -> [String] {
        zip(pipeline.outputs, outputs).filter { output, path in
            (output == .srt || output == .vtt) && CaptionFileCues.count(at: path) == 0
        }.map(\.1)
    }

    func summary(_ results: [BatchFileResult], tally: BatchTally) -> JSONValue {
        let files: [JSONValue] = results.map { result in
            var entries: [(key: String, value: JSONValue)] = [
                ("input", .string(result.item.path)),
                ("outputs", .array(pipeline.outputPaths(for: result.item.path).map { .string($0) })),
                ("audioSeconds", .number(StoreTime.rounded(result.audioSeconds))),
                ("wallSeconds", .number(StoreTime.rounded(result.wallSeconds))),
                ("status", .string(BatchOutcome(result).rawValue)),
            ]
            if let error = result.error { entries.append(("error", .string(error.description))) }
            if result.succeeded {
                entries.append(("emptyCaptions", .array(emptyCaptionFiles(pipeline.outputPaths(for: result.item.path))
                    .map { .string($0) })))
            }
            return .object(JSONObject(entries))
        }
        let factor = tally.realTimeFactor
        return .object(JSONObject([
            ("files", .number(Double(tally.files))), ("done", .number(Double(tally.done))),
            ("failed", .number(Double(tally.failed))), ("interrupted", .number(Double(tally.interrupted))),
            ("audioSeconds", .number(StoreTime.rounded(tally.audioSeconds))),
            ("wallSeconds", .number(StoreTime.rounded(tally.wallSeconds))),
            ("realTimeFactor", .number((factor * 100).rounded() / 100)),
            ("engine", .string(engine)),
            ("model", model.map(JSONValue.string) ?? .null),
            ("results", .array(files)),
        ]))
    }
}
