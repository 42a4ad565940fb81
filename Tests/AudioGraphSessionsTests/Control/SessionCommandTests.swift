import AudioGraph
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

/// The session control protocol: parsing JSON lines and keys into commands, the error and acknowledgement
/// objects, and running commands on a live session (`SessionCommandRunner`).
@Suite("session control protocol", .ownThreads)
struct SessionCommandTests {
    @Test("every command name parses, the toggles included, and names itself back")
    func everyNameParses() throws {
        #expect(SessionCommand.names.count == 8)
        for name in SessionCommand.names {
            let line = name == "setCaptionLanguage" ? #"{"command":"\#(name)","language":"de"}"# : #"{"command":"\#(name)"}"#
            #expect(try SessionCommand.parse(line: "  \(line) ")?.name == name)
        }
        #expect(try SessionCommand.parse(line: #"{"command":"setCaptionLanguage","language":"en-US"}"#)
            == .setCaptionLanguage("en-US"))
        #expect(try SessionCommand.parse(line: "   ") == nil)
    }

    @Test("bad lines are bad_command errors naming what was wrong; the hint knows the toggles")
    func badLines() {
        let cases: [(line: String, command: String?, message: String)] = [
            ("not json", nil, #"expected a JSON object like {"command":"startTranscription"}, got: not json"#),
            (#"{"language":"en"}"#, nil, #"expected a JSON object like {"command":"startTranscription"}, got: {"language":"en"}"#),
            (#"{"command":"dance"}"#, "dance", "unknown command"),
            (#"{"command":"toggleCaption"}"#, "toggleCaption", #"unknown command (did you mean "toggleCaptions"?)"#),
            (#"{"command":"setCaptionLanguage"}"#, "setCaptionLanguage", #"setCaptionLanguage needs "language""#),
        ]
        for (line, command, message) in cases {
            #expect(throws: SessionCommandError(command: command, message)) { try SessionCommand.parse(line: line) }
        }
    }

    @Test("keys: t and c toggle (each under its control), q stops, others are nothing")
    func keys() {
        #expect(SessionCommand(key: UInt8(ascii: "t")) == .toggleTranscription)
        #expect(SessionCommand(key: UInt8(ascii: "c")) == .toggleCaptions)
        #expect(SessionCommand(key: UInt8(ascii: "q")) == .stop)
        #expect(SessionCommand(key: UInt8(ascii: "x")) == nil)
        #expect(SessionCommand.toggleTranscription.keyControl == .transcription)
        #expect(SessionCommand.toggleCaptions.keyControl == .captions)
        #expect(SessionCommand.stop.keyControl == nil)
    }

    @Test("the error object: type, node, command when known, code, message, in that order")
    func errorObject() {
        let error = SessionCommandError(command: "stop", "gone", code: "control_unavailable")
        #expect(JSONWriter.compact(.object(error.json))
            == #"{"type":"error","node":"session","command":"stop","code":"control_unavailable","message":"gone"}"#)
        #expect(JSONWriter.compact(.object(SessionCommandError(command: nil, "x").json))
            == #"{"type":"error","node":"session","code":"bad_command","message":"x"}"#)
    }

    /// Collects what a runner reports.
    final class Reports: Sendable {
        private let objects = Mutex<[String]>([])
        func add(_ object: JSONObject) { objects.withLock { $0.append(JSONWriter.compact(.object(object))) } }
        var all: [String] { objects.withLock { $0 } }
    }

    @Test("on a live session: acks carry the state after the command, errors the session's code, stop acks then ends")
    func runsOnASession() async throws {
        var settings = SessionSettings(id: "s1")
        settings.hideTranscriptionButton = false
        settings.hideClosedCaptionButton = false
        let (session, graph) = try TranscriptionSessionTests().makeSession(engine: "test-counting", blocks: 1000,
                                                                           settings: settings)
        let source = graph.node("src")!.instance as! StepSourceNode
        let reports = Reports()
        let runner = SessionCommandRunner(session: session, report: reports.add)
        let (events, result) = session.start()
        let drain = Task { for await _ in events {} }
        source.release(2)

        await runner.perform(line: #"{"command":"toggleTranscription"}"#)
        await runner.perform(line: #"{"command":"toggleCaptions"}"#)
        await runner.perform(line: "")
        await runner.perform(line: #"{"command":"setCaptionLanguage","language":"xx-none"}"#)
        await runner.key(UInt8(ascii: "c"))
        #expect(!runner.stopRequested)
        await runner.key(UInt8(ascii: "q"))
        #expect(runner.stopRequested)
        _ = try await result.value
        await drain.value

        let all = reports.all
        #expect(all.count == 5, "\(all)")
        #expect(all.first == #"{"type":"ack","command":"toggleTranscription","transcribing":true,"captions":false,"captionLanguage":"en-US"}"#, "\(all)")
        #expect(all.dropFirst().first?.contains(#""command":"toggleCaptions","transcribing":true,"captions":true"#) == true, "\(all)")
        #expect(all.dropFirst(2).first?.contains(#""command":"setCaptionLanguage","code":"unsupported_language""#) == true, "\(all)")
        #expect(all.dropFirst(3).first?.contains(#""command":"toggleCaptions","transcribing":true,"captions":false"#) == true, "\(all)")
        #expect(all.last?.hasPrefix(#"{"type":"ack","command":"stop""#) == true, "\(all)")
    }

    @Test("a key whose control is hidden is refused with control_hidden; a session without a recognizer says so")
    func hiddenKeyAndNoRecognizer() async throws {
        var settings = SessionSettings(id: "s1")
        settings.hideTranscriptionButton = true
        let (session, _) = try TranscriptionSessionTests().makeSession(engine: "test-counting", blocks: 1, settings: settings)
        let reports = Reports()
        let runner = SessionCommandRunner(session: session, report: reports.add)
        await runner.key(UInt8(ascii: "t"))
        await runner.key(UInt8(ascii: "x"))
        #expect(reports.all == [#"{"type":"error","node":"session","command":"toggleTranscription","code":"control_hidden","#
            + #""message":"the transcription control is hidden for this session (session.hideTranscriptionButton is true)"}"#])

        let spec = GraphSpec(nodes: [NodeSpec(id: "src", type: "test-steps"), NodeSpec(id: "rec", type: "test-recorder")],
                             links: try LinkSpec.chain("src -> rec"), baseDirectory: "/")
        let plain = TranscriptionSession(graph: try GraphBuilder(registry: TranscriptionSessionTests.registry()).build(spec))
        let plainReports = Reports()
        await SessionCommandRunner(session: plain, report: plainReports.add).perform(.startTranscription)
        #expect(plainReports.all == [#"{"type":"error","node":"session","command":"startTranscription","#
            + #""code":"no_transcriber","message":"the graph has no recognizer"}"#])
    }
}
