import AudioGraphCore
import Foundation
import AudioGraphTestKit
import Testing
@testable import AudioGraphDSP

// Frame-level F1 of the VAD on real speech: the labelled fixtures of Tests/AudioGraphSpeechTests/Fixtures
// (read in place through #filePath; this test target has no resources of its own), against vad_labels.tsv.
//
// Scoring as in benchmarks/vad_eval.py: 10 ms frames, a frame is speech when its centre lies in a segment.
// Measured with the defaults (2026-11-29): the five librivox files pooled 0.968 (each 0.915-0.986), with
// chan3_16k 0.910 (chan3's labels come from pocketsphinx's endpointer and call long pauses speech). The bounds sit
// a few points under, so they do not flap but do catch a regression.

private let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("AudioGraphSpeechTests/Fixtures")

/// 16-bit PCM mono WAV samples and rate.
private func readWAV(_ url: URL) throws -> (samples: [Float], rate: Int) {
    let data = try Data(contentsOf: url)
    func u32(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 | Int(data[at + 2]) << 16 | Int(data[at + 3]) << 24 }
    func u16(_ at: Int) -> Int { Int(data[at]) | Int(data[at + 1]) << 8 }
    try #require(data.count > 44 && String(decoding: data[0..<4], as: UTF8.self) == "RIFF")
    var position = 12
    var rate = 0
    while position + 8 <= data.count {
        let id = String(decoding: data[position..<(position + 4)], as: UTF8.self)
        let size = u32(position + 4)
        let body = position + 8
        if id == "fmt " {
            try #require(u16(body) == 1 && u16(body + 2) == 1 && u16(body + 14) == 16, "16-bit PCM mono")
            rate = u32(body + 4)
        } else if id == "data" {
            let count = min(size, data.count - body) / 2
            let samples = (0..<count).map { i in
                Float(Int16(bitPattern: UInt16(u16(body + 2 * i)))) / 32_768
            }
            return (samples, rate)
        }
        position = body + size + (size & 1)
    }
    throw GraphError(.io, at: url.path, "no data chunk")
}

private func labels() throws -> [String: [(Double, Double)]] {
    let text = try String(contentsOf: fixtures.appendingPathComponent("vad_labels.tsv"), encoding: .utf8)
    var result: [String: [(Double, Double)]] = [:]
    for line in text.split(separator: "\n") {
        let parts = line.split(separator: "\t")
        guard parts.count == 3, let start = Double(parts[1]), let end = Double(parts[2]) else { continue }
        result[String(parts[0]), default: []].append((start, end))
    }
    return result
}

private struct Counts {
    var truePositive = 0, falsePositive = 0, falseNegative = 0
    var f1: Double {
        let p = Double(truePositive) / Double(max(truePositive + falsePositive, 1))
        let r = Double(truePositive) / Double(max(truePositive + falseNegative, 1))
        return p + r > 0 ? 2 * p * r / (p + r) : 0
    }
    static func += (a: inout Counts, b: Counts) {
        a.truePositive += b.truePositive
        a.falsePositive += b.falsePositive
        a.falseNegative += b.falseNegative
    }
}

/// Runs one fixture through the detector (as the node does) and scores it.
private func score(_ name: String, _ labels: [(Double, Double)]) throws -> Counts {
    let (samples, rate) = try readWAV(fixtures.appendingPathComponent(name + ".wav"))
    let detector = VoiceActivityDetector(sampleRate: rate)
    var segments: [(Double, Double)] = []
    var open: Double?
    func handle(_ action: VADStateMachine.Action) {
        switch action {
        case .speechStarted(let at): open = Double(at) / Double(rate)
        case .speechEnded(let at):
            if let start = open { segments.append((start, Double(at) / Double(rate))) }
            open = nil
        case .speechPausing, .speechSplit:
            break
        }
    }
    try samples.withUnsafeBufferPointer { try detector.process($0, handle) }
    if let last = detector.finish() { handle(last) }
    var counts = Counts()
    for frame in 0..<(samples.count / (rate / 100)) {
        let centre = (Double(frame) + 0.5) * 0.01
        let reference = labels.contains { centre >= $0.0 && centre < $0.1 }
        let detected = segments.contains { centre >= $0.0 && centre < $0.1 }
        switch (reference, detected) {
        case (true, true): counts.truePositive += 1
        case (false, true): counts.falsePositive += 1
        case (true, false): counts.falseNegative += 1
        case (false, false): break
        }
    }
    return counts
}

@Suite(.ownThreads) struct VADSpeechFixtureTests {
    static let librivox = ["librivox_0870", "librivox_0880", "librivox_0890", "librivox_0920", "librivox_0930"]

    @Test func frameF1OnLabelledSpeech() throws {
        let labels = try labels()
        var librivox = Counts()
        for name in Self.librivox {
            let counts = try score(name, try #require(labels[name]))
            // Each file on its own, a looser bound (the shortest files have few frames).
            #expect(counts.f1 > 0.89, "\(name): F1 \(counts.f1)")
            librivox += counts
        }
        #expect(librivox.f1 > 0.94, "librivox pooled F1 \(librivox.f1)")
        var all = librivox
        all += try score("chan3_16k", try #require(labels["chan3_16k"]))
        #expect(all.f1 > 0.88, "librivox + chan3 pooled F1 \(all.f1)")
    }

    /// Every fixture of the speech set (including the unlabelled ones) holds speech the detector finds.
    @Test func everySpeechFixtureHasSpeech() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: fixtures.path)
            .filter { $0.hasSuffix(".wav") }.sorted()
        #expect(names.count == 15)
        for name in names {
            let (samples, rate) = try readWAV(fixtures.appendingPathComponent(name))
            let detector = VoiceActivityDetector(sampleRate: rate)
            var starts = 0
            try samples.withUnsafeBufferPointer { try detector.process($0) { if case .speechStarted = $0 { starts += 1 } } }
            #expect(starts >= 1, "\(name)")
        }
    }
}
