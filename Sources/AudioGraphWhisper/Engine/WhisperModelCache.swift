import Foundation
import Synchronization

/// The whisper models loaded in this process, shared: recognizers of one model file (a call's participants, a
/// batch's parallel pipelines) use one `whisper_context` and a `whisper_state` each, so a participant who joins
/// does not load the model again (tiny.en: ~75 MB and 0.1–0.3 s a load; base: ~150 MB). A model is held
/// weakly: it is freed when the last recognizer using it goes, and a file changed on disk since (another
/// size, modification time or inode) is loaded anew.
enum WhisperModelCache {
    private struct Key: Hashable {
        let path: String
        let device: UInt64
        let inode: UInt64
        let size: Int64
        let modified: Int
        let modifiedNanoseconds: Int
    }

    private final class Entry: Sendable {
        nonisolated(unsafe) weak var model: WhisperModel?
        init(_ model: WhisperModel) { self.model = model }
    }

    private static let entries = Mutex<[Key: Entry]>([:])
    private static let loadCounts = Mutex<[String: Int]>([:])

    /// How many times the file at `path` was loaded from disk so far (not counting the recognizers that shared a
    /// load): for tests and measurements.
    static func loads(of path: String) -> Int { loadCounts.withLock { $0[path] ?? 0 } }

    /// The model at `path`, loaded now or shared with whoever loaded it; nil when whisper.cpp refuses the file.
    /// Loading holds the cache's lock, so two recognizers starting at once load it once.
    static func model(at path: String) -> WhisperModel? {
        var info = stat()
        guard stat(path, &info) == 0 else { return WhisperModel(path: path) }
        let key = Key(path: path, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), size: Int64(info.st_size),
                      modified: info.st_mtim.tv_sec, modifiedNanoseconds: info.st_mtim.tv_nsec)
        return entries.withLock { entries -> WhisperModel? in
            if let model = entries[key]?.model { return model }
            entries = entries.filter { $0.value.model != nil }
            guard let model = WhisperModel(path: path) else { return nil }
            loadCounts.withLock { $0[path, default: 0] += 1 }
            entries[key] = Entry(model)
            return model
        }
    }
}
