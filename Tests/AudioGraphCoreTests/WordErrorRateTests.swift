/// Issue 15, item "WER normalizer in benchmarks/ and in the tests": `WordErrorRate` (AudioGraphTestKit) and
/// `benchmarks/wer.py` normalize text the same way (numbers as words, "Mr." → "mister", annotations and
/// punctuation out) and count the same errors. Both run on benchmarks/wer_cases.tsv and on generated text.
import AudioGraphTestKit
import Foundation
import Testing

@Suite struct WordErrorRateTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The cases file shared with `wer.py selftest`: (input, expected words).
    static func cases() throws -> [(input: String, expected: String)] {
        let text = try String(contentsOf: repository.appendingPathComponent("benchmarks/wer_cases.tsv"), encoding: .utf8)
        return text.split(separator: "\n", omittingEmptySubsequences: true).compactMap { line in
            guard !line.hasPrefix("#") else { return nil }
            let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]), parts.count > 1 ? String(parts[1]) : "")
        }
    }

    /// Runs `python3 benchmarks/wer.py ARGS` with `input` on stdin; returns its stdout.
    static func python(_ arguments: [String], input: String = "") throws -> String {
        let (status, output) = try pythonStatus(arguments, input: input)
        #expect(status == 0, "wer.py \(arguments) exited \(status)")
        return output
    }

    /// Runs `python3 benchmarks/wer.py ARGS` with `input` on stdin; returns its exit status and stdout.
    static func pythonStatus(_ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", repository.appendingPathComponent("benchmarks/wer.py").path] + arguments
        let stdin = Pipe(), stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        try process.run()
        // Write and read on separate threads' worth of buffering: the inputs here are small (< 64 KB).
        try stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func casesNormalizeAsExpected() throws {
        let cases = try Self.cases()
        #expect(cases.count >= 30)
        for (input, expected) in cases {
            #expect(WordErrorRate.normalize(input).joined(separator: " ") == expected, "input: \(input)")
        }
    }

    @Test func numbersAreWordsAsTheReferencesWriteThem() {
        #expect(WordErrorRate.normalize("Go forward 10 meters.") == ["go", "forward", "ten", "meters"])
        #expect(WordErrorRate.normalize("29340") == ["two", "nine", "three", "four", "zero"])
        #expect(WordErrorRate.normalize("And Mr. John") == ["and", "mister", "john"])
    }

    /// The Swift normalizer and wer.py give the same words for every case and for 300 generated lines mixing
    /// numbers, times, money, ordinals, abbreviations, annotations and punctuation.
    @Test func swiftAndPythonAgree() throws {
        var lines = try Self.cases().map(\.input)
        lines += Self.generatedLines(count: 300)
        let python = try Self.python(["normalize"], input: lines.joined(separator: "\n") + "\n")
            .split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(python.count == lines.count + 1)  // the last newline
        for (index, line) in lines.enumerated() where index < python.count {
            #expect(WordErrorRate.normalize(line).joined(separator: " ") == python[index], "input: \(line)")
        }
    }

    @Test func errorsCountEditsAfterNormalizing() throws {
        let pairs: [(String, String, Int, Int)] = [
            ("go forward ten meters", "Go forward 10 meters.", 0, 4),
            ("ten of clubs", "10 of clothes", 1, 3),                 // a substitution
            ("eight of spades four of clubs", "eight spades four of clubs", 1, 6),  // a deletion
            ("two nine three four zero", "29340. Thank you.", 2, 5),  // two insertions
            ("he might even have been made amiable himself", "", 8, 8),
            ("", "hello there", 2, 0),
        ]
        for (reference, hypothesis, errors, words) in pairs {
            let got = WordErrorRate.errors(reference: reference, hypothesis: hypothesis)
            #expect(got.errors == errors && got.words == words, "\(reference) / \(hypothesis): \(got)")
            let python = try Self.python(["errors", reference, hypothesis]).trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(python == "\(got.errors) \(got.words)", "wer.py errors \(reference) / \(hypothesis)")
        }
    }

    /// Deterministic lines of tokens drawn from a pool that exercises every rule (a fixed linear congruential
    /// generator, so a failure reproduces).
    static func generatedLines(count: Int) -> [String] {
        let pool = ["10", "7", "0", "05", "29340", "1200", "12,500", "1,234.5", "2.75", "$12", "$3.50", "$1,200",
                    "5%", "25 %", "9:30", "10:05", "12:00", "21st", "3rd", "100th", "12th", "Mr.", "mrs", "Dr.",
                    "OK", "&", "ill-disposed", "don't", "'quoted'", "(laughs)", "[BLANK_AUDIO]", "<sil>", "go(2)",
                    "++noise++", "hundred", "and", "three", "forty", "clubs,", "Hearts!", "It’s", "o’clock", "—",
                    "x7", "7x", "1.2.3", "3:4:5", "$", "%", "1st-2nd", "99999999999999999999th", "call 555-0123"]
        var state: UInt64 = 0x2545F4914F6CDD1D
        func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
        return (0..<count).map { _ in
            (0..<(1 + next(8))).map { _ in pool[next(pool.count)] }.joined(separator: next(4) == 0 ? "" : " ")
        }
    }
}
