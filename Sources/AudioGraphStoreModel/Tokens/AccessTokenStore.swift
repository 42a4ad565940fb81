/// Where the HTTP API's access tokens are kept: per token an id, its user and a hash of its secret (never the
/// secret itself). The server (`AccessTokens` in AudioGraphServer) makes and checks tokens; a store only keeps
/// rows. `SQLiteTranscriptStore` keeps them in its `access_tokens` table, beside the transcripts they guard.
public protocol AccessTokenStore: AnyObject, Sendable {
    /// Adds a token row. Fails (`storeUnavailable`) when the id exists.
    func addToken(_ token: StoredAccessToken) throws(TranscriptsError)
    /// The token with this id, revoked or not; nil when there is none.
    func token(id: String) throws(TranscriptsError) -> StoredAccessToken?
    /// Every token, oldest first.
    func tokens() throws(TranscriptsError) -> [StoredAccessToken]
    /// Revokes every live token of `user` at `time` (epoch seconds); returns how many it revoked.
    func revokeTokens(user: String, at time: Int64) throws(TranscriptsError) -> Int
}

/// One access token as stored.
public struct StoredAccessToken: Sendable, Equatable {
    /// The public part of the token: names the row, proves nothing.
    public var id: String
    public var user: String
    /// SHA-256 of the token's secret.
    public var secretHash: [UInt8]
    /// Epoch seconds.
    public var created: Int64
    /// Epoch seconds; nil while the token is valid.
    public var revoked: Int64?

    public init(id: String, user: String, secretHash: [UInt8], created: Int64, revoked: Int64? = nil) {
        self.id = id
        self.user = user
        self.secretHash = secretHash
        self.created = created
        self.revoked = revoked
    }
}
