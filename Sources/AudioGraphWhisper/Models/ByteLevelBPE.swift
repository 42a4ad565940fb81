/// GPT-2's byte-level BPE alphabet: each byte is shown as a printable character (`Ġ` for space, `Ċ` for newline).
/// CTranslate2's `vocabulary.txt` holds tokens in that form; whisper.cpp's ggml vocabulary wants the raw bytes.
public enum ByteLevelBPE {
    /// The printable character standing for each byte (GPT-2's `bytes_to_unicode`).
    public static let characterForByte: [Unicode.Scalar] = {
        let printable = Array(33...126) + Array(161...172) + Array(174...255)
        var scalars = [Unicode.Scalar](repeating: " ", count: 256)
        for byte in printable { scalars[byte] = Unicode.Scalar(UInt32(byte))! }
        var next: UInt32 = 256
        for byte in 0..<256 where !printable.contains(byte) {
            scalars[byte] = Unicode.Scalar(next)!
            next += 1
        }
        return scalars
    }()

    private static let byteForCharacter: [Unicode.Scalar: UInt8] = {
        var table: [Unicode.Scalar: UInt8] = [:]
        for (byte, scalar) in characterForByte.enumerated() { table[scalar] = UInt8(byte) }
        return table
    }()

    /// The raw bytes of a token written in the byte-level alphabet, or nil if a character is outside it.
    public static func bytes(ofToken token: String) -> [UInt8]? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(token.unicodeScalars.count)
        for scalar in token.unicodeScalars {
            guard let byte = byteForCharacter[scalar] else { return nil }
            bytes.append(byte)
        }
        return bytes
    }
}
