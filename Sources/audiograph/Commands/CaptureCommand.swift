import AudioGraph
import Dispatch
import Foundation
import Synchronization

struct CaptureCommand: Command {
    static let name = "capture"
    static let abstract = "Record from the microphone until Enter or Ctrl-C, then print the transcript"
    static let usage = "audiograph capture [--device DEVICE] [--keep FILE.m4a] [--language CODE]"
    static let options = CommandOptions([
        .valued("--device", "DEVICE", "PulseAudio/PipeWire source to record (default: the default source)."),
        .valued("--keep", "FILE", "Keep the AAC recording at FILE (the temporary one is always deleted). An existing "
            + "FILE is replaced only when it is a regular file, by renaming a file written beside it over it; a "
            + "folder, device, FIFO or socket there (or a link to one) is refused before recording starts (exit 73, "
            + "naming it) and left untouched."),
        .valued("--language", "CODE", "Recognition language (default en-US)."),
    ])
    static let help = """
        \(abstract).

        USAGE: \(usage)

        \(options.help)

        Shows a level bar and the duration on stderr while recording; prints the transcript on stdout.
        Exit codes: 69 microphone or recognizer unavailable, 65 no speech recognized, 73 --keep FILE is not a
        regular file (or its folder does not exist), 74 recording failed,
        70 transcription failed, 130 cancelled (a second Ctrl-C while transcribing).
        """

    static func run(_ arguments: [String], registry: NodeRegistry) throws(GraphError) -> Int32 {
        let args = try Arguments(arguments, Self.options)
        _ = try args.requirePositionals([])
        var configuration = VoiceCaptureSession.Configuration()
        if let device = args.value("--device") {
            configuration.source.parameters["device"] = .string(device)
        }
        if let keep = args.value("--keep") {
            configuration.keepRecording = URL(fileURLWithPath: keep)
        }
        if let language = args.value("--language") {
            configuration.recognizer["language"] = .string(language)
        }
        let session = VoiceCaptureSession(configuration: configuration, registry: registry)
        let outcome = Mutex<Result<VoiceCaptureResult, VoiceCaptureError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let stopRequested = DispatchSemaphore(value: 0)
        let interrupts = InterruptSignals { stopRequested.signal() }
        defer { withExtendedLifetime(interrupts) {} }
        let showLevel = Console.stderrIsTerminal

        Task {
            do {
                try await session.startRecording()
                printError("audiograph: recording — press Enter or Ctrl-C to stop")
                let meter = Task {
                    for await level in session.levels() where showLevel {
                        Console.setStatus("[\(StatusText.levelBar(level.audioLevel, width: 30))] "
                            + StatusText.clock(level.recordingDuration))
                    }
                }
                // Enter on stdin, or Ctrl-C, stops the recording.
                Thread.detachNewThread {
                    _ = readLine()
                    stopRequested.signal()
                }
                await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                    DispatchQueue.global().async {
                        stopRequested.wait()
                        resume.resume()
                    }
                }
                meter.cancel()
                if showLevel { Console.setStatus(nil) }
                printError("audiograph: transcribing…")
                // A second Ctrl-C now cancels.
                let cancelWatcher = Task.detached {
                    await withCheckedContinuation { (resume: CheckedContinuation<Void, Never>) in
                        DispatchQueue.global().async {
                            stopRequested.wait()
                            resume.resume()
                        }
                    }
                    try? await session.cancel()
                }
                let result = try await session.stopAndTranscribe()
                cancelWatcher.cancel()
                outcome.withLock { $0 = .success(result) }
            } catch let error as VoiceCaptureError {
                outcome.withLock { $0 = .failure(error) }
            } catch {
                outcome.withLock { $0 = .failure(.recordingFailed(String(describing: error))) }
            }
            done.signal()
        }
        done.wait()
        switch outcome.withLock({ $0 })! {
        case .success(let result):
            printOut(result.transcript)
            printError(String(format: "audiograph: %.1f s recorded", result.duration))
            return 0
        case .failure(let error):
            if case .cannotKeepRecording(let why) = error { throw GraphError(.cannotCreateOutput, at: "--keep", why) }
            throw GraphError(Self.code(for: error), at: "capture", error.description)
        }
    }

    static func code(for error: VoiceCaptureError) -> GraphError.Code {
        switch error {
        case .microphoneUnavailable, .microphonePermissionDenied, .recognizerUnavailable, .speechRecognitionPermissionDenied:
            return .unavailable
        case .emptyTranscript: return .invalidConfig
        case .recordingFailed: return .io
        case .cannotKeepRecording: return .cannotCreateOutput
        case .transcriptionFailed: return .nodeFailed
        case .cancelled: return .interrupted
        case .invalidState: return .usage
        }
    }
}
