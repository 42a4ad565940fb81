/// The last few seconds of mono audio by stream position, so a recognizer can start an utterance where the VAD
/// says speech began (pre-roll), after the fact.
struct AudioRing {
    private var storage: [Float]
    private var end: Int64 = 0  // stream position just after the newest sample

    init(capacity: Int) {
        storage = [Float](repeating: 0, count: max(1, capacity))
    }

    var endPosition: Int64 { end }
    var startPosition: Int64 { max(0, end - Int64(storage.count)) }

    /// Appends samples that start at `position` (gaps are filled with silence).
    mutating func append(_ samples: UnsafeBufferPointer<Float>, at position: Int64) {
        if position > end {
            let gap = Int(min(position - end, Int64(storage.count)))
            for i in 0..<gap { storage[Int((end + Int64(i)) % Int64(storage.count))] = 0 }
            end = position
        }
        for sample in samples {
            storage[Int(end % Int64(storage.count))] = sample
            end += 1
        }
    }

    /// Calls `body` with the samples from `from` (clamped to what is kept) to the end, in at most two runs.
    func read(from: Int64, _ body: (UnsafeBufferPointer<Float>) throws -> Void) rethrows {
        let start = max(from, startPosition)
        guard start < end else { return }
        let capacity = Int64(storage.count)
        let first = Int(start % capacity)
        let count = Int(end - start)
        try storage.withUnsafeBufferPointer { all in
            let firstRun = min(count, storage.count - first)
            try body(UnsafeBufferPointer(rebasing: all[first..<(first + firstRun)]))
            if firstRun < count {
                try body(UnsafeBufferPointer(rebasing: all[0..<(count - firstRun)]))
            }
        }
    }
}
