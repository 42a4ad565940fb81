import AudioGraphStore
import CCrypto

/// Makes and checks the HTTP API's bearer tokens.
///
/// A token is `agt_<id>_<secret>`: `id` (16 hex digits) names its row, `secret` is 32 random bytes from
/// OpenSSL's `RAND_bytes` in hex. The store keeps the id, the user and SHA-256 of the secret, never the secret,
/// so a copy of the store does not give working tokens. Checking hashes the secret and compares the hashes with
/// `CRYPTO_memcmp` (constant time); an unknown id is hashed and compared too, so the answer takes as long.
///
/// A token that checked out is remembered (by SHA-256 of the whole token) while the store's change stamp stays
/// the same (`StoreChangeStamping`): a revocation, by this process or another, is a commit, so the next check
/// asks the store again. A store that cannot stamp is asked every time.
public final class AccessTokens: Sendable {
    private let store: any AccessTokenStore
    private let now: @Sendable () -> Int64
    private let checked = StoreAnswerCache<[UInt8], String>(budget: 1 << 20, cost: { $0.utf8.count + 64 })

    public static let prefix = "agt_"

    public init(store: any AccessTokenStore, now: @escaping @Sendable () -> Int64 = StoreTime.now) {
        self.store = store
        self.now = now
    }

    /// A new token for `user`; the only time the secret is seen.
    public func create(user: String) throws(TokenError) -> (token: String, id: String) {
        guard Self.isValidUser(user) else { throw .badUser(user) }
        let id = Self.hex(try Self.randomBytes(8))
        let secret = Self.hex(try Self.randomBytes(32))
        do {
            try store.addToken(StoredAccessToken(id: id, user: user, secretHash: Self.sha256(Array(secret.utf8)), created: now()))
        } catch {
            throw .store(error)
        }
        return (Self.prefix + id + "_" + secret, id)
    }

    /// The user a token belongs to, or nil when it is malformed, unknown or revoked.
    public func user(for token: String) throws(TokenError) -> String? {
        // Cast at each call: the cast's result kept in a property was over-released in release builds (Swift 6.0).
        guard let stamp = (store as? any StoreChangeStamping)?.changeStamp() else { return try storedUser(for: token) }
        let key = Self.sha256(Array(token.utf8))
        if let user = checked.value(for: key, stamp: stamp) { return user }
        let user = try storedUser(for: token)
        if let user { checked.keep(user, for: key, stamp: stamp) }
        return user
    }

    /// `user(for:)` asking the store.
    private func storedUser(for token: String) throws(TokenError) -> String? {
        let parsed = Self.parse(token)
        let stored: StoredAccessToken?
        do {
            stored = try parsed.map { parsed throws(TranscriptsError) in try store.token(id: parsed.id) } ?? nil
        } catch {
            throw .store(error)
        }
        let presented = Self.sha256(Array((parsed?.secret ?? token).utf8))
        let expected = stored?.secretHash ?? Array(repeating: 0, count: presented.count)
        let same = expected.count == presented.count && expected.withUnsafeBytes { a in
            presented.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
        guard same, let stored, stored.revoked == nil else { return nil }
        return stored.user
    }

    /// Every token (without secrets), oldest first.
    public func list() throws(TokenError) -> [StoredAccessToken] {
        do { return try store.tokens() } catch { throw .store(error) }
    }

    /// Revokes every token of `user`; how many were live.
    public func revoke(user: String) throws(TokenError) -> Int {
        do { return try store.revokeTokens(user: user, at: now()) } catch { throw .store(error) }
    }

    // MARK: Pieces

    /// User names: 1…64 of letters, digits, `.`, `_`, `-`, `@`.
    public static func isValidUser(_ user: String) -> Bool {
        (1...64).contains(user.utf8.count) && user.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == 0x2E || byte == 0x5F || byte == 0x2D || byte == 0x40
        }
    }

    static func parse(_ token: String) -> (id: String, secret: String)? {
        guard token.hasPrefix(prefix) else { return nil }
        let parts = token.dropFirst(prefix.count).split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].count == 16, parts[1].count == 64,
              parts[0].allSatisfy(\.isHexDigit), parts[1].allSatisfy(\.isHexDigit) else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// SHA-256 through OpenSSL's EVP interface.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let ok = bytes.withUnsafeBytes { input in
            EVP_Digest(input.baseAddress, input.count, &digest, &length, EVP_sha256(), nil)
        }
        precondition(ok == 1 && length == 32, "OpenSSL's SHA-256 failed")
        return Array(digest.prefix(Int(length)))
    }

    static func randomBytes(_ count: Int) throws(TokenError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        guard RAND_bytes(&bytes, Int32(count)) == 1 else { throw .noRandomness }
        return bytes
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// Why a token could not be made or checked.
public enum TokenError: Error, Equatable, Sendable, CustomStringConvertible {
    case badUser(String)
    case noRandomness
    case store(TranscriptsError)

    public var description: String {
        switch self {
        case .badUser(let user):
            return "bad user name \"\(user)\": use 1 to 64 letters, digits, '.', '_', '-' or '@'"
        case .noRandomness: return "OpenSSL could not produce random bytes"
        case .store(let error): return error.message
        }
    }
}
