import CCrypto
import Foundation

/// RFC 6455's `Sec-WebSocket-Accept` (section 4.2.2): what the server answers for the client's
/// `Sec-WebSocket-Key`, and what a client checks the answer against. The one place both sides compute it.
public enum WebSocketAccept {
    /// RFC 6455's fixed GUID, appended to the key before hashing.
    public static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// Base64 of SHA-1 of `key` and the GUID (RFC 6455's example: "dGhlIHNhbXBsZSBub25jZQ==" gives
    /// "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=").
    public static func value(forKey key: String) -> String {
        let input = Array((key + guid).utf8)
        var digest = [UInt8](repeating: 0, count: 20)
        let done = input.withUnsafeBytes { bytes in audiograph_sha1(bytes.baseAddress, bytes.count, &digest) }
        precondition(done == 1, "OpenSSL's SHA-1 failed")  // only on allocation failure inside OpenSSL
        return Data(digest).base64EncodedString()
    }

    /// A fresh `Sec-WebSocket-Key`: base64 of 16 random bytes.
    public static func newKey() -> String {
        Data(randomBytes(16)).base64EncodedString()
    }

    /// `count` bytes from OpenSSL's generator (the client's masks and keys: RFC 6455 asks for unpredictable ones).
    static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        if RAND_bytes(&bytes, Int32(count)) != 1 {
            for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255) }
        }
        return bytes
    }
}
