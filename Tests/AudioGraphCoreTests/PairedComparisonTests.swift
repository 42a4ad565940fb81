/// Issue 16's pairs ("ours ≤ theirs, each pair measured in one run"): `benchmarks/wer.py paired`, which
/// whisper_eval.py's report uses for every pair, gives the difference in errors with a 95 % bootstrap interval
/// over clips, and the clips each side did better on.
import Foundation
import Testing

@Suite struct PairedComparisonTests {
    /// "difference low high better worse ties" as integers, and the verdict.
    static func paired(ours: [Int], theirs: [Int]) throws -> (numbers: [Int], verdict: String) {
        let output = try WordErrorRateTests.python(["paired", "--ours", ours.map(String.init).joined(separator: ","),
                                                    "--theirs", theirs.map(String.init).joined(separator: ",")])
        let fields = output.split(whereSeparator: \.isWhitespace).map(String.init)
        return (fields.prefix(6).compactMap { Int($0) }, fields.dropFirst(6).joined(separator: " "))
    }

    @Test func equalSystemsDifferByNothing() throws {
        let result = try Self.paired(ours: [3, 0, 7, 2, 1], theirs: [3, 0, 7, 2, 1])
        #expect(result.numbers == [0, 0, 0, 0, 0, 5])
        #expect(result.verdict == "within noise")
    }

    /// Under 5 clips a bootstrap cannot tell their spread: one clip a word worse is not "behind".
    @Test func fewClipsGiveNoVerdict() throws {
        let result = try Self.paired(ours: [2, 1, 1], theirs: [1, 1, 1])
        #expect(result.numbers.first == 1 && Array(result.numbers.dropFirst(3)) == [0, 1, 2], "\(result)")
        #expect(result.verdict == "too few clips")
    }

    /// Fewer errors on every clip: the whole interval is below 0 (the report's "ahead").
    @Test func fewerErrorsOnEveryClipIsAhead() throws {
        let (result, verdict) = try Self.paired(ours: [1, 2, 0, 3, 1, 2, 1, 0], theirs: [4, 5, 2, 6, 3, 5, 4, 2])
        #expect(result.count == 6)
        #expect(result[0] == -21)
        #expect(result[1] <= result[0] && result[0] <= result[2] && result[2] < 0, "\(result)")
        #expect(Array(result[3...]) == [8, 0, 0])
        #expect(verdict == "ahead")
    }

    /// Worse on 6 clips of 9 and 6 errors behind in all, but the interval holds 0 (the report's
    /// "within noise"), and the seeded bootstrap gives the same interval every time.
    @Test func mixedClipsAreWithinNoiseAndReproducible() throws {
        let ours = [5, 2, 6, 4, 13, 8, 3, 9, 10], theirs = [1, 4, 5, 2, 14, 5, 2, 8, 13]
        let (first, verdict) = try Self.paired(ours: ours, theirs: theirs)
        #expect(first.count == 6)
        #expect(first[0] == 6 && first[1] < 0 && first[2] > 0, "\(first)")
        #expect(Array(first[3...]) == [3, 6, 0])
        #expect(verdict == "within noise")
        #expect(try Self.paired(ours: ours, theirs: theirs).numbers == first)
    }

    @Test func clipsThatDoNotPairAreRefused() throws {
        let (status, output) = try WordErrorRateTests.pythonStatus(["paired", "--ours", "1,2", "--theirs", "1"])
        #expect(status == 2)
        #expect(output.isEmpty)
    }
}
