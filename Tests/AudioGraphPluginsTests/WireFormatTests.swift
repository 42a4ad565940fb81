import AudioGraphCore
import AudioGraphPlugins
import Foundation
import Testing

/// What crosses the plugin ABI reads back as what was written, and garbage is refused with a reason.
@Suite struct WireFormatTests {
    func roundTrip(_ value: JSONValue) throws -> JSONValue { try WireFormat.parse(WireFormat.text(value)) }

    @Test func eventsRoundTripExactly() throws {
        let events = [
            Event(node: "lvl", time: 1.23456789, payload: .level(LevelReading(level: 0.4242, rmsDb: [-23.123456, -20], peakDb: [-8.5, -7]))),
            Event(node: "vad", time: 0.52, payload: .speechStarted),
            Event(node: "vad", time: 2.91, payload: .speechEnded),
            Event(node: "asr", time: 2, payload: .transcript(TranscriptUpdate(segment: 3, revision: 2, isFinal: false, start: 0.52,
                                                                             end: 1.8, text: "go \"forward\"\n", language: nil))),
            Event(node: "x", time: 3, payload: .custom(type: "clipped", kind: "clip", fields: ["samples": 12, "note": "ünïcode"])),
        ]
        for event in events {
            let back = try WireFormat.event(roundTrip(WireFormat.encode(event)))
            #expect(back == event, "\(back) != \(event)")
        }
    }

    @Test func commandsRoundTrip() throws {
        let commands: [ControlCommand] = [.startTranscription, .stopTranscription, .showCaptions, .hideCaptions,
                                          .setLanguage("fr-FR"), .flush, .custom(name: "gain", arguments: ["db": -3])]
        for command in commands {
            #expect(try WireFormat.command(roundTrip(WireFormat.encode(command))) == command)
        }
    }

    @Test func configurationsAndRecognizerValuesRoundTrip() throws {
        let session = SessionSettings(id: "s", room: "r", autoStartTranscription: true, captions: true, captionLanguage: "de-DE",
                                      participants: ["ann"])
        let configuration = NodeConfiguration(id: "g", type: "gain", values: ["gainDb": 6, "path": "/a b/c"],
                                              baseDirectory: "/base", session: session)
        let back = try WireFormat.configuration(roundTrip(WireFormat.encode(configuration)))
        #expect(back.id == "g" && back.type == "gain" && back.values == configuration.values && back.baseDirectory == "/base")
        #expect(back.session == session)
        let capabilities = RecognizerCapabilities(streaming: true, partialResults: false, wordTimings: true, languages: ["en-US"],
                                                  sampleRate: 16000, context: UtteranceContext(leadIn: 0.2, tail: 0.5))
        #expect(try WireFormat.capabilities(roundTrip(WireFormat.encode(capabilities))) == capabilities)
        // A plugin that sends no context gets the node's default; a negative one is refused.
        let withoutContext: JSONValue = ["streaming": true, "partialResults": false, "wordTimings": true,
                                         "languages": ["en-US"], "sampleRate": 16000]
        #expect(try WireFormat.capabilities(withoutContext).context == UtteranceContext())
        var negative = withoutContext.objectValue ?? [:]
        negative["context"] = ["leadIn": -1]
        #expect(throws: WireFormatError.self) { try WireFormat.capabilities(.object(negative)) }
        let result = RecognitionResult(text: "go", confidence: 0.8, words: [.init(word: "go", start: 0.1, end: 0.3, confidence: 0.9)])
        #expect(try WireFormat.recognitionResult(roundTrip(WireFormat.encode(result))) == result)
        #expect(try WireFormat.format(roundTrip(WireFormat.encode(AudioFormat(sampleRate: 44100, channels: 2))))
            == AudioFormat(sampleRate: 44100, channels: 2))
        #expect(try WireFormat.format(roundTrip(WireFormat.encode(nil))) == nil)
    }

    @Test func garbageIsRefusedWithAReason() {
        let cases: [(String, String)] = [
            (#"[1]"#, "descriptor must be a JSON object"),
            (#"{"type":"x","summary":"","category":"sauce","parameters":[],"inputs":[],"outputs":[]}"#, "category"),
            (#"{"type":"x","summary":"","category":"filter","parameters":[{"name":"a","kind":"colour"}],"inputs":[],"outputs":[]}"#,
             "unknown kind \"colour\""),
            (#"{"type":"x","summary":"","category":"filter","parameters":[],"inputs":[],"outputs":[],"acceptedFormats":{"channels":[2,1]}}"#,
             "channels"),
        ]
        for (text, fragment) in cases {
            do {
                _ = try WireFormat.descriptor(WireFormat.parse(text))
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.message.contains(fragment), "\(error.message)")
            }
        }
        #expect(throws: WireFormatError.self) { try WireFormat.parse("{not json") }
        #expect(throws: WireFormatError("unknown command \"dance\"")) { try WireFormat.command(.object(["command": "dance"])) }
        #expect(throws: WireFormatError.self) { try WireFormat.format(.object(["sampleRate": 0, "channels": 1])) }
    }
}
