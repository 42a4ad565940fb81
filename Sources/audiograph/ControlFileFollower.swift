import Foundation

/// Reads a `--control` path line by line for as long as the run lasts: a regular file is followed like
/// `tail -f` (lines appended later are read as they come), and a FIFO is opened again after each writer closes
/// it, so `echo '{"command":"stop"}' > fifo` works every time.
enum ControlFileFollower {
    /// How often a regular file is checked for more lines at its end.
    static let pollInterval: useconds_t = 50_000

    /// Calls `onLine` with each complete line (and a last line without a newline, when a FIFO's writer
    /// closes), on the calling thread; returns only when `path` cannot be opened (`onError` says why).
    static func follow(path: String, onLine: (String) -> Void, onError: (String) -> Void) {
        var status = stat()
        guard stat(path, &status) == 0 else { return onError("cannot open the control file \(path): no such file") }
        let isFIFO = status.st_mode & S_IFMT == S_IFIFO
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            // Opening a FIFO waits for its next writer.
            let descriptor = open(path, O_RDONLY)
            guard descriptor >= 0 else {
                if errno == EINTR { continue }
                return onError("cannot open the control file \(path): \(String(cString: strerror(errno)))")
            }
            var pending: [UInt8] = []
            while true {
                let count = read(descriptor, &buffer, buffer.count)
                if count < 0 {
                    if errno == EINTR { continue }
                    break
                }
                if count == 0 {
                    if isFIFO { break }
                    usleep(pollInterval)
                    continue
                }
                pending += buffer[0..<count]
                while let newline = pending.firstIndex(of: 0x0A) {
                    onLine(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
            close(descriptor)
            if !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
            if !isFIFO { return }
        }
    }
}
