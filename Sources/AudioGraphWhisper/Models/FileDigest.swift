import CCrypto
import Foundation

/// SHA-256 of a file, read in 1 MiB blocks (OpenSSL's EVP interface).
public enum FileDigest {
    /// The lowercase hex SHA-256 of the file at `path`, or nil when it cannot be read.
    public static func sha256Hex(ofFile path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path), let context = EVP_MD_CTX_new() else { return nil }
        defer {
            EVP_MD_CTX_free(context)
            try? handle.close()
        }
        guard EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else { return nil }
        while true {
            let block: Data
            do {
                // nil at the end of the file.
                guard let read = try handle.read(upToCount: 1 << 20), !read.isEmpty else { break }
                block = read
            } catch {
                return nil
            }
            let ok = block.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
            guard ok == 1 else { return nil }
        }
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1 else { return nil }
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
    }
}
