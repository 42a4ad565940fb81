import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphSpeech

// `caption-sink` writing files: validity while open, finalization on stop, parameter and I/O errors, and
// ffmpeg reading the subtitles back.

private func harness(_ parameters: JSONObject, session: SessionSettings = CaptionTestSupport.session) throws
    -> NodeHarness<CaptionSinkNode>
{
    try NodeHarness(type: CaptionSinkNode.self, id: "cc", parameters: parameters, input: nil, session: session)
}

private func finalUpdate(_ segment: Int, _ text: String, at start: Double) -> Event {
    let words = CaptionTestSupport.words(text, from: start, step: 0.4, length: 0.3)
    return CaptionTestSupport.transcript(TranscriptUpdate(segment: segment, revision: 2, isFinal: true, start: start,
                                                          end: words.last!.end, text: text, confidence: 0.7, words: words))
}

@Suite(.ownThreads) struct CaptionSinkNodeTests {
    @Test("the JSON transcript parses after every utterance while the sink is still open")
    func jsonValidWhileOpen() throws {
        try CaptionTestSupport.withScratchDirectory { folder in
            let path = folder + "/out/t.json"
            let sink = try harness(CaptionTestSupport.parameters(format: "json", path: path),
                                   session: SessionSettings(captionLanguage: "fr-FR"))
            func utterances() throws -> [[String: Any]] {
                let data = try Data(contentsOf: URL(fileURLWithPath: path))
                let document = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
                #expect(document["session"] is NSNull)
                #expect(document["language"] as? String == "fr-FR")
                return try #require(document["utterances"] as? [[String: Any]])
            }
            #expect(try utterances().isEmpty, "valid from the start")
            for index in 0..<25 {
                try sink.push(CaptionTestSupport.transcript(TranscriptUpdate(
                    segment: index, revision: 1, isFinal: false, start: Double(index) * 3, end: Double(index) * 3 + 1,
                    text: "partial \"quoted\" \\ text")))
                try sink.push(finalUpdate(index, "utterance number \(index) says \"hi\" \\ ok", at: Double(index) * 3))
                let got = try utterances()
                #expect(got.count == index + 1)
                #expect(got.last?["text"] as? String == "utterance number \(index) says \"hi\" \\ ok")
                #expect(got.last?["language"] as? String == "fr-FR")
            }
            try sink.push(.setLanguage("de-DE"))
            try sink.push(finalUpdate(99, "danke", at: 100))
            try sink.finish()
            #expect(try utterances().last?["language"] as? String == "de-DE")
            #expect(try utterances().count == 26)
        }
    }

    @Test("SRT and WebVTT files hold every cue written so far, and stop without finish leaves them valid",
          arguments: ["srt", "webvtt", "json"])
    func validAfterStop(format: String) throws {
        try CaptionTestSupport.withScratchDirectory { folder in
            let path = folder + "/c.\(format)"
            let sink = try harness(CaptionTestSupport.parameters(format: format, path: path))
            try sink.push(finalUpdate(1, "first words", at: 1))
            let afterOne = try String(contentsOfFile: path, encoding: .utf8)
            #expect(afterOne.contains("first words"))
            try sink.push(finalUpdate(2, "second words", at: 4))
            sink.stop()  // what the runtime does when another node failed
            sink.stop()
            let text = try String(contentsOfFile: path, encoding: .utf8)
            #expect(text.contains("second words"))
            switch format {
            case "srt": #expect(text.hasPrefix("1\n00:00:01,000 --> ") && text.hasSuffix("second words\n\n"))
            case "webvtt": #expect(text.hasPrefix("WEBVTT\n\n00:00:01.000 --> ") && text.hasSuffix("second words\n\n"))
            default: #expect(try JSONSerialization.jsonObject(with: Data(text.utf8)) is [String: Any])
            }
        }
    }

    @Test("a path whose parent is a regular file cannot be created: cannotCreateOutput naming the path")
    func unwritablePath() throws {
        try CaptionTestSupport.withScratchDirectory { folder in
            let blocker = folder + "/not-a-folder"
            try Data("x".utf8).write(to: URL(fileURLWithPath: blocker))
            for format in ["srt", "webvtt", "json"] {
                let path = blocker + "/captions.out"
                let error = CaptionTestSupport.graphError {
                    _ = try harness(CaptionTestSupport.parameters(format: format, path: path))
                }
                #expect(error?.code == .cannotCreateOutput)
                #expect(error?.location == path)
                #expect(error?.nodeID == "cc")
            }
            // A folder where the file should be.
            let error = CaptionTestSupport.graphError {
                _ = try harness(CaptionTestSupport.parameters(format: "srt", path: folder))
            }
            #expect(error?.code == .cannotCreateOutput)
            #expect(error?.location == folder)
        }
    }

    @Test("a failing write is an I/O error naming the file")
    func writeFailure() throws {
        guard FileManager.default.isWritableFile(atPath: "/dev/full") else {
            print("skipped: /dev/full is not available")
            return
        }
        // A full disk, through a link to /dev/full made in the test's own folder (never the device's own path).
        let folder = try TemporaryFolder(prefix: "full")
        let full = folder.path("full.srt")
        try FileManager.default.createSymbolicLink(atPath: full, withDestinationPath: "/dev/full")
        let sink = try harness(CaptionTestSupport.parameters(format: "srt", path: full))
        let error = CaptionTestSupport.graphError { try sink.push(finalUpdate(1, "no room", at: 0)) }
        #expect(error?.code == .io)
        #expect(error?.location == full)
        sink.stop()
        // WebVTT writes its header at start: the failure shows then.
        let atStart = CaptionTestSupport.graphError {
            _ = try harness(CaptionTestSupport.parameters(format: "webvtt", path: full))
        }
        #expect(atStart?.code == .cannotCreateOutput)
        #expect(atStart?.location == full)
    }

    @Test("parameter errors name the parameter")
    func parameterErrors() throws {
        for format in ["srt", "webvtt", "json"] {
            let error = CaptionTestSupport.graphError { _ = try harness(CaptionTestSupport.parameters(format: format)) }
            #expect(error?.code == .invalidConfig)
            #expect(error?.location == "nodes.cc.path")
            #expect(error?.message.contains("set \"path\"") == true)
        }
        let live = CaptionTestSupport.graphError {
            _ = try harness(CaptionTestSupport.parameters(format: "live", path: "out/captions.vtt"))
        }
        #expect(live?.location == "nodes.cc.path")
        #expect(live?.message == "live captions go to the terminal; remove path, or set \"format\": \"webvtt\" to write out/captions.vtt")
        let defaultLive = CaptionTestSupport.graphError { _ = try harness(["path": "captions.srt"]) }
        #expect(defaultLive?.message.contains("\"format\": \"srt\"") == true)
        let minimum = CaptionTestSupport.graphError {
            _ = try harness(["format": "live", "maxCueSeconds": 2, "minCueSeconds": 3])
        }
        #expect(minimum?.location == "nodes.cc.minCueSeconds")
        let range = CaptionTestSupport.graphError { _ = try harness(["maxLineLength": 10]) }
        #expect(range?.location == "nodes.cc.maxLineLength")
        let lines = CaptionTestSupport.graphError { _ = try harness(["maxLines": 4]) }
        #expect(lines?.location == "nodes.cc.maxLines")
    }

    @Test("the declaration: a queued sink that needs transcripts")
    func descriptor() {
        let descriptor = CaptionSinkNode.descriptor
        #expect(descriptor.type == "caption-sink")
        #expect(descriptor.category == .sink)
        #expect(descriptor.inputs.map(\.requires) == [[.transcript]])
        #expect(descriptor.outputs.isEmpty)
        #expect(descriptor.execution == .queued(capacity: 256))
        #expect(descriptor.parameters.map(\.name) == ["format", "path", "maxLineLength", "maxLines", "maxCueSeconds",
                                                       "minCueSeconds", "stream"])
    }

    @Test("ffmpeg reads the SRT and WebVTT files back as subtitles", arguments: [("srt", "c.srt"), ("webvtt", "c.vtt")])
    func ffmpegReadsBack(format: String, fileName: String) throws {
        guard let ffmpeg = ["/usr/bin/ffmpeg", "/usr/local/bin/ffmpeg", "/opt/homebrew/bin/ffmpeg"]
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) })
        else {
            print("skipped: ffmpeg is not installed, so the subtitles cannot be read back")
            return
        }
        try CaptionTestSupport.withScratchDirectory { folder in
            _ = try CaptionTestSupport.render(format: format, fileName: fileName, in: folder)
            let process = ChildProcess()
            process.executableURL = URL(fileURLWithPath: ffmpeg)
            process.arguments = ["-nostdin", "-v", "error", "-i", folder + "/" + fileName, "-f", "srt", "-"]
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let data = output.fileHandleForReading.readDataToEndOfFile()
            let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "ffmpeg: \(errorText)")
            #expect(errorText.isEmpty, "ffmpeg: \(errorText)")
            let text = String(decoding: data, as: UTF8.self)
            for expected in ["00:00:00,520 --> 00:00:02,900", "go forward ten meters", "then turn left at the second door and",
                             "the right side of the hall", "salt & pepper, please", "00:00:17,300 --> 00:00:18,300", "okay"] {
                #expect(text.contains(expected), "ffmpeg's reading lacks \(expected):\n\(text)")
            }
        }
    }
}
