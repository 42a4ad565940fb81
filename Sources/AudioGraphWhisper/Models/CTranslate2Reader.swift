import Foundation

/// Reads a CTranslate2 (spec version 6) `model.bin`: an index of its variables first, each variable's data only
/// when asked, so a converter streams the model instead of holding it in memory.
///
/// Layout (little-endian): u32 version, string name, u32 revision, u32 variable count; per variable: string name,
/// u8 rank, u32 × rank shape, u8 dtype, u32 byte count, data; then u32 alias count and (alias, target) strings.
/// A string is a u16 length counting a trailing NUL, then the bytes.
public final class CTranslate2Reader {
    /// Element types of CTranslate2 variables.
    public enum DataType: UInt8, Sendable {
        case float32 = 0, int8 = 1, int16 = 2, int32 = 3, float16 = 4

        /// Bytes per element.
        public var size: Int {
            switch self {
            case .int8: return 1
            case .int16, .float16: return 2
            case .float32, .int32: return 4
            }
        }
    }

    /// One variable of the model: its name, shape, element type and where its data is in the file.
    public struct Variable: Sendable, Equatable {
        /// The CTranslate2 name (`encoder/layer_0/ffn/linear_0/weight`).
        public let name: String
        /// Dimensions, outermost first; empty for a scalar.
        public let shape: [Int]
        /// The element type.
        public let dataType: DataType
        /// Where the data starts in the file.
        public let offset: UInt64
        /// The data's length.
        public let byteCount: Int
        /// Number of elements (1 for a scalar).
        public var count: Int { shape.reduce(1, *) }
    }

    /// The model spec's name (`WhisperSpec` for Whisper).
    public let specName: String
    /// The file's format version.
    public let version: UInt32
    /// Variables by name, in file order in `names`.
    public private(set) var variables: [String: Variable] = [:]
    /// Variable names in file order.
    public private(set) var names: [String] = []
    /// Aliases (e.g. `decoder/projection/weight` → `decoder/embeddings/weight`).
    public private(set) var aliases: [String: String] = [:]
    /// The file read.
    public let path: String

    private let handle: FileHandle
    private let fileSize: UInt64

    /// Opens `path` and reads the variable index (not the data).
    public init(path: String) throws(ModelConversionError) {
        self.path = path
        guard let handle = FileHandle(forReadingAtPath: path) else {
            throw .unreadable(path: path, reason: FileManager.default.fileExists(atPath: path) ? "permission denied" : "no such file")
        }
        self.handle = handle
        do {
            fileSize = try handle.seekToEnd()
            try handle.seek(toOffset: 0)
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        var cursor = Cursor(handle: handle, fileSize: fileSize, path: path)
        version = try cursor.u32()
        guard version == 6 else {
            throw .corrupt(path: path, reason: "format version \(version), expected 6")
        }
        specName = try cursor.string()
        _ = try cursor.u32() // spec revision
        let count = try cursor.u32()
        guard count < 100_000 else { throw .corrupt(path: path, reason: "\(count) variables") }
        for _ in 0..<count {
            let name = try cursor.string()
            let rank = Int(try cursor.u8())
            guard rank <= 8 else { throw .corrupt(path: path, reason: "variable \(name) has rank \(rank)") }
            var shape: [Int] = []
            for _ in 0..<rank { shape.append(Int(try cursor.u32())) }
            let rawType = try cursor.u8()
            guard let dataType = DataType(rawValue: rawType) else {
                throw .corrupt(path: path, reason: "variable \(name) has unknown dtype \(rawType)")
            }
            let byteCount = Int(try cursor.u32())
            guard byteCount == shape.reduce(1, *) * dataType.size else {
                throw .corrupt(path: path, reason: "variable \(name) has \(byteCount) bytes for shape \(shape)")
            }
            let variable = Variable(name: name, shape: shape, dataType: dataType, offset: cursor.offset, byteCount: byteCount)
            try cursor.skip(byteCount)
            variables[name] = variable
            names.append(name)
        }
        let aliasCount = try cursor.u32()
        guard aliasCount < 100_000 else { throw .corrupt(path: path, reason: "\(aliasCount) aliases") }
        for _ in 0..<aliasCount {
            let alias = try cursor.string()
            aliases[alias] = try cursor.string()
        }
    }

    deinit { try? handle.close() }

    /// The variable of that name (following an alias), or nil.
    public func variable(_ name: String) -> Variable? {
        variables[name] ?? aliases[name].flatMap { variables[$0] }
    }

    /// The variable of that name, or a `corrupt` error saying it is missing.
    public func require(_ name: String) throws(ModelConversionError) -> Variable {
        guard let found = variable(name) else { throw .corrupt(path: path, reason: "no variable \(name)") }
        return found
    }

    /// The raw bytes of a variable, read from the file now (one buffer of its size, filled with pread).
    public func data(of variable: Variable) throws(ModelConversionError) -> Data {
        var data = Data(count: variable.byteCount)
        let descriptor = handle.fileDescriptor
        let failure: String? = data.withUnsafeMutableBytes { buffer -> String? in
            var done = 0
            while done < buffer.count {
                let got = pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(variable.offset) + off_t(done))
                if got < 0 {
                    if errno == EINTR { continue }
                    return String(cString: strerror(errno))
                }
                if got == 0 { return "" }
                done += got
            }
            return nil
        }
        switch failure {
        case nil: return data
        case ""?: throw .corrupt(path: path, reason: "variable \(variable.name) is cut short")
        case let reason?: throw .unreadable(path: path, reason: reason)
        }
    }

    /// The value of an integer scalar variable (such as `encoder/num_heads`).
    public func integerScalar(_ name: String) throws(ModelConversionError) -> Int {
        let variable = try require(name)
        guard variable.count == 1 else { throw .corrupt(path: path, reason: "\(name) is not a scalar") }
        let bytes = [UInt8](try data(of: variable))
        switch variable.dataType {
        case .int8: return Int(Int8(bitPattern: bytes[0]))
        case .int16: return Int(Int16(bitPattern: UInt16(bytes[0]) | UInt16(bytes[1]) << 8))
        case .int32:
            return Int(Int32(bitPattern: bytes.prefix(4).enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * $1.offset) }))
        case .float16, .float32: throw .corrupt(path: path, reason: "\(name) is not an integer")
        }
    }
}

/// Sequential little-endian reads of the index, checked against the file's size.
private struct Cursor {
    let handle: FileHandle
    let fileSize: UInt64
    let path: String
    var offset: UInt64 = 0

    mutating func bytes(_ count: Int) throws(ModelConversionError) -> [UInt8] {
        guard offset + UInt64(count) <= fileSize else { throw .corrupt(path: path, reason: "cut short at byte \(offset)") }
        let data: Data
        do {
            data = try handle.read(upToCount: count) ?? Data()
        } catch {
            throw .unreadable(path: path, reason: "\(error)")
        }
        guard data.count == count else { throw .corrupt(path: path, reason: "cut short at byte \(offset)") }
        offset += UInt64(count)
        return [UInt8](data)
    }

    mutating func skip(_ count: Int) throws(ModelConversionError) {
        guard offset + UInt64(count) <= fileSize else { throw .corrupt(path: path, reason: "cut short at byte \(offset)") }
        offset += UInt64(count)
        do { try handle.seek(toOffset: offset) } catch { throw .unreadable(path: path, reason: "\(error)") }
    }

    mutating func u8() throws(ModelConversionError) -> UInt8 { try bytes(1)[0] }

    mutating func u32() throws(ModelConversionError) -> UInt32 {
        let b = try bytes(4)
        return UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24
    }

    mutating func string() throws(ModelConversionError) -> String {
        let lengthBytes = try bytes(2)
        let length = Int(lengthBytes[0]) | Int(lengthBytes[1]) << 8
        guard length > 0 else { throw .corrupt(path: path, reason: "empty string at byte \(offset)") }
        var raw = try bytes(length)
        guard raw.removeLast() == 0, let text = String(bytes: raw, encoding: .utf8) else {
            throw .corrupt(path: path, reason: "malformed string at byte \(offset)")
        }
        return text
    }
}
