import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphIO

// Helpers shared by the test files of this target.

/// A fresh temporary directory named `prefix-<UUID>`, removed when `body` returns.
func withTemporaryFolder<T>(prefix: String, _ body: (String) throws -> T) throws -> T {
    let folder = try TemporaryFolder(prefix: prefix)
    return try withExtendedLifetime(folder) { try body(folder.path) }
}

/// Everything `reader` decodes from where it is to the end (interleaved), read `framesPerRead` at a time.
func readSamples(_ reader: SoundFileReader, framesPerRead: Int) throws -> [Float] {
    var all: [Float] = []
    var chunk = [Float](repeating: 0, count: framesPerRead * reader.channels)
    while true {
        let got = try chunk.withUnsafeMutableBufferPointer { buffer throws(SoundFileError) in
            try reader.read(into: buffer, maxFrames: framesPerRead)
        }
        if got == 0 { break }
        all.append(contentsOf: chunk[0..<(got * reader.channels)])
    }
    return all
}

/// An interleaved stereo test signal whose channels differ (so interleaving mistakes show): a 440 Hz sine of
/// amplitude 0.5 on the left, a 660 Hz sine of `rightAmplitude` starting at phase `rightPhase` on the right.
func stereoSine(frames: Int, sampleRate: Int, rightAmplitude: Double = 0.5, rightPhase: Double = 0) -> [Float] {
    var samples = [Float](repeating: 0, count: frames * 2)
    for i in 0..<frames {
        let t = Double(i) / Double(sampleRate)
        samples[2 * i] = Float(0.5 * sin(2 * Double.pi * 440 * t))
        samples[2 * i + 1] = Float(rightAmplitude * sin(2 * Double.pi * 660 * t + rightPhase))
    }
    return samples
}

/// The `GraphError` that `body` throws, or nil (any other error is recorded as an issue).
func graphError(sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) -> GraphError? {
    do {
        try body()
        return nil
    } catch let error as GraphError {
        return error
    } catch {
        Issue.record("expected a GraphError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}
