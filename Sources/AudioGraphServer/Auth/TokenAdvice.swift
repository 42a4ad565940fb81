import AudioGraphStore

/// What `audiograph tokens create` tells the person who made a token, besides the token.
public enum TokenAdvice {
    /// One line on how the token is used.
    public static func usage(store: String) -> String {
        "send it as \"Authorization: Bearer TOKEN\", or paste it into the web page of "
            + "\"audiograph serve --store \(store)\""
    }

    /// A warning when `user` takes part in no stored session (a token that shows an empty page); nil when they
    /// do, or when the store cannot say.
    public static func participationWarning(user: String, store: any TranscriptStore) -> String? {
        guard let sessions = try? store.sessions(participant: user, after: nil, offset: 0, limit: 1, transcribedOnly: false),
              sessions.isEmpty else { return nil }
        return "\(user) is a participant in no stored session, so the API and the web page show them nothing yet; "
            + "sessions list participants in session.participants (default: the user who ran the pipeline)"
    }
}
