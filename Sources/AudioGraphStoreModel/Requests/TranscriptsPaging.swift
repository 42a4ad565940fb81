/// A session's transcripts, page by page, wherever they are: `TranscriptsRequest` reads a local store,
/// `RemoteTranscriptsRequest` (AudioGraphClient) asks an `audiograph serve` over HTTP. Both follow the same
/// rules, so code that walks pages takes `any TranscriptsPaging`:
///
/// ```swift
/// func printAll(_ request: any TranscriptsPaging) async throws(TranscriptsError) {
///     var page = try await request.fetchNext()
///     while !page.isEmpty {
///         for record in page { print(record.tid, record.transcriptDate) }
///         page = try await request.fetchNext()
///     }
/// }
/// ```
///
/// Rules (both conformers):
/// - `sessionId` is required: missing or empty fails every fetch with `sessionIdMissing`.
/// - `limit` defaults to 30 and is clamped to 1…1000.
/// - `fetchNext()` gives the next page, or `[]` after the last (and a later call sees transcripts added since);
///   `fetchPrevious()` gives the previous page, or `[]` on page 1 and on a fresh request (without a query).
/// - The cursor moves only when a fetch succeeds: after a failure the same fetch can be retried.
/// - A fetch while another is in flight fails with `requestInProgress`; the one in flight completes.
/// - A record that does not parse is skipped (the rest of its page comes back).
public protocol TranscriptsPaging: Sendable {
    /// The session whose transcripts are listed, as built (nil: not given).
    var sessionId: String? { get }
    /// Transcripts per page, after clamping.
    var limit: Int { get }
    /// The 1-based number of the page last returned; 0 before the first.
    var pageNumber: Int { get }
    /// The next page, or `[]` after the last.
    func fetchNext() async throws(TranscriptsError) -> [TranscriptRecord]
    /// The previous page, or `[]` on page 1 and before the first fetch.
    func fetchPrevious() async throws(TranscriptsError) -> [TranscriptRecord]
}
