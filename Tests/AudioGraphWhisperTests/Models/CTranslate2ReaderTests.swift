/// Issue 15, install (model conversion): the CTranslate2 reader indexes variables without reading their data,
/// follows aliases, and names the file when the model is cut short or malformed.
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphWhisper

@Suite(.ownThreads) struct CTranslate2ReaderTests {
    private func sample() -> CTranslate2FileBuilder {
        var builder = CTranslate2FileBuilder()
        builder.variables = [
            .init(name: "encoder/num_heads", shape: [], dataType: 2, data: [6, 0]),
            .init(name: "decoder/embeddings/weight", shape: [2, 3], dataType: 4, data: [0, 0x3c, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0, 0x3c]),
        ]
        builder.aliases = [("decoder/projection/weight", "decoder/embeddings/weight")]
        return builder
    }

    @Test func indexesVariablesAndReadsTheirDataOnDemand() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-models")
        try sample().write(to: folder.path("model.bin"))
        let reader = try CTranslate2Reader(path: folder.path("model.bin"))
        #expect(reader.specName == "WhisperSpec" && reader.version == 6)
        #expect(reader.names == ["encoder/num_heads", "decoder/embeddings/weight"])
        #expect(try reader.integerScalar("encoder/num_heads") == 6)
        let projection = try #require(reader.variable("decoder/projection/weight"))
        #expect(projection.shape == [2, 3] && projection.dataType == .float16 && projection.count == 6)
        #expect([UInt8](try reader.data(of: projection)) == sample().variables[1].data)
    }

    @Test func aModelCutShortIsCorruptAndNamed() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-models")
        let path = folder.path("model.bin")
        let bytes = sample().bytes()
        for length in [0, 3, 10, bytes.count - 20, bytes.count - 1] {
            try Data(bytes.prefix(length)).write(to: URL(fileURLWithPath: path))
            #expect {
                _ = try CTranslate2Reader(path: path)
            } throws: { error in
                guard case .corrupt(let named, _) = error as? ModelConversionError else { return false }
                return named == path
            }
        }
    }

    @Test func aWrongVersionOrDataTypeOrSizeIsCorrupt() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-models")
        let path = folder.path("model.bin")
        var builder = sample()
        builder.version = 5
        try builder.write(to: path)
        #expect(throws: ModelConversionError.corrupt(path: path, reason: "format version 5, expected 6")) {
            try CTranslate2Reader(path: path)
        }
        builder = sample()
        builder.variables[1].dataType = 9
        try builder.write(to: path)
        #expect(throws: ModelConversionError.corrupt(path: path, reason: "variable decoder/embeddings/weight has unknown dtype 9")) {
            try CTranslate2Reader(path: path)
        }
        builder = sample()
        builder.variables[1].shape = [3, 3]
        try builder.write(to: path)
        #expect(throws: ModelConversionError.corrupt(path: path, reason: "variable decoder/embeddings/weight has 12 bytes for shape [3, 3]")) {
            try CTranslate2Reader(path: path)
        }
    }

    @Test func aMissingFileIsUnreadable() {
        #expect(throws: ModelConversionError.unreadable(path: "/nonexistent/model.bin", reason: "no such file")) {
            try CTranslate2Reader(path: "/nonexistent/model.bin")
        }
    }

    @Test func aModelThatIsNotWhisperOrLacksTensorsIsRefusedByTheConverter() throws {
        let folder = try TemporaryFolder(prefix: "audiograph-models")
        var builder = sample()
        builder.spec = "TransformerSpec"
        try builder.write(to: folder.path("model.bin"))
        try Data("!\n<|endoftext|>\n".utf8).write(to: URL(fileURLWithPath: folder.path("vocabulary.txt")))
        let output = folder.path("out.bin")
        #expect(throws: ModelConversionError.corrupt(path: folder.path("model.bin"), reason: "spec TransformerSpec, expected WhisperSpec")) {
            try WhisperModelConverter.convert(ctranslate2Folder: folder.path, to: output)
        }
        try sample().write(to: folder.path("model.bin"))
        #expect(throws: ModelConversionError.corrupt(path: folder.path("model.bin"), reason: "no variable encoder/conv1/weight")) {
            try WhisperModelConverter.convert(ctranslate2Folder: folder.path, to: output)
        }
        #expect(!FileManager.default.fileExists(atPath: output))
    }
}
