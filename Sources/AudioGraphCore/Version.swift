/// The version of audiograph (what `audiograph --version` and `GET /health` say).
public enum AudioGraphVersion {
    public static let current = "0.1.0"
}
