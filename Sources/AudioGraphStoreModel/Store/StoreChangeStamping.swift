/// A store that can tell, cheaply and without waiting for its queries, whether anything in it may have changed
/// since an earlier look: a commit by this process or by any other. Readers that keep answers (the HTTP API's
/// pages and tokens, `StoreAnswerCache`) keep them only while the stamp stays the same.
public protocol StoreChangeStamping: AnyObject, Sendable {
    /// A value that differs from the one before every commit to the store since, whoever made it; nil when
    /// the store cannot tell now (then nothing may be kept). Read it *before* the data an answer is made of:
    /// an answer kept under a stamp then never holds data older than the stamp says.
    func changeStamp() -> UInt64?
}
