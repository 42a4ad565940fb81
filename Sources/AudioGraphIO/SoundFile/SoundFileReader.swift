import CSndFile
import Foundation

/// Reads a sound file (WAV, FLAC, OGG/Vorbis, MP3 and whatever else libsndfile 1.2 reads)
/// as interleaved 32-bit float frames.
///
/// Confinement: a reader owns a libsndfile handle that is not safe to use from two threads
/// at once. Use each instance from one thread (or one task / actor) at a time; handing it
/// to another thread between calls is fine. The class is deliberately not `Sendable`.
public final class SoundFileReader {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    /// Frames in the file, or nil when libsndfile does not know (e.g. a stream).
    public let frameCount: Int64?
    /// A short human description built from libsndfile's major format and subtype names,
    /// e.g. "WAV (Signed 16 bit PCM)", "FLAC (Signed 24 bit PCM)", "OGG (Vorbis)",
    /// "MPEG-1/2 Audio (MPEG Layer III)".
    public let formatName: String

    private var handle: OpaquePointer?

    public init(path: String) throws(SoundFileError) {
        self.path = path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw SoundFileError(kind: .notFound, path: path,
                                 message: "cannot open \(path): No such file or directory")
        }
        if isDirectory.boolValue {
            throw SoundFileError(kind: .unreadable, path: path,
                                 message: "cannot open \(path): Is a directory")
        }

        var info = SF_INFO()  // zeroed, as libsndfile requires for SFM_READ
        let opened = sndFileOpen(path, mode: SFM_READ, info: &info)
        guard let handle = opened.handle else {
            let kind: SoundFileError.Kind
            switch Int(opened.errorCode) {
            case SF_ERR_UNRECOGNISED_FORMAT, SF_ERR_UNSUPPORTED_ENCODING: kind = .unsupportedFormat
            default: kind = .unreadable
            }
            throw SoundFileError(kind: kind, path: path,
                                 message: "cannot open \(path): \(opened.errorText)")
        }
        guard info.channels > 0, info.samplerate > 0 else {
            sf_close(handle)
            throw SoundFileError(
                kind: .unsupportedFormat, path: path,
                message: "cannot open \(path): invalid header (\(info.channels) channels, \(info.samplerate) Hz)")
        }
        self.handle = handle
        self.sampleRate = Int(info.samplerate)
        self.channels = Int(info.channels)
        // libsndfile reports SF_COUNT_MAX (Int64.max) when the length is unknown.
        self.frameCount = (info.frames >= 0 && info.frames != Int64.max) ? info.frames : nil
        self.formatName = SoundFileReader.describe(handle: handle, format: info.format)
    }

    deinit {
        if let handle { sf_close(handle) }
    }

    /// Reads up to `maxFrames` interleaved frames into `buffer` (which must hold at least
    /// `maxFrames * channels` floats). Returns the number of frames read; 0 at end of file.
    public func read(into buffer: UnsafeMutableBufferPointer<Float>, maxFrames: Int) throws(SoundFileError) -> Int {
        precondition(maxFrames >= 0, "maxFrames must not be negative")
        precondition(buffer.count >= maxFrames * channels,
                     "buffer holds \(buffer.count) floats, \(maxFrames) frames need \(maxFrames * channels)")
        guard let handle else {
            throw SoundFileError(kind: .io, path: path, message: "cannot read \(path): the file is closed")
        }
        guard maxFrames > 0, let base = buffer.baseAddress else { return 0 }
        let got = sf_readf_float(handle, base, sf_count_t(maxFrames))
        if got <= 0 {
            let code = sf_error(handle)
            if code != 0 {
                // Only SF_ERR_SYSTEM is the system failing; any other code is libsndfile rejecting the data.
                throw SoundFileError(kind: code == Int32(SF_ERR_SYSTEM) ? .io : .corrupt, path: path,
                                     message: "cannot read \(path): \(sndFileCleanMessage(sf_strerror(handle)))")
            }
            return 0
        }
        return Int(got)
    }

    /// Closes the file. Safe to call more than once; also done by deinit.
    public func close() {
        if let handle {
            sf_close(handle)
            self.handle = nil
        }
    }

    private static func describe(handle: OpaquePointer, format: Int32) -> String {
        func name(_ code: Int32) -> String? {
            var info = SF_FORMAT_INFO()
            info.format = code
            let rc = sf_command(handle, Int32(SFC_GET_FORMAT_INFO), &info,
                                Int32(MemoryLayout<SF_FORMAT_INFO>.size))
            guard rc == 0, let cName = info.name else { return nil }
            return String(cString: cName)
        }
        let major = name(format & Int32(SF_FORMAT_TYPEMASK))
        let subtype = name(format & Int32(SF_FORMAT_SUBMASK))
        // "WAV (Microsoft)" -> "WAV"; the parenthesised part is the subtype instead.
        let majorShort = major.map { m in
            m.range(of: " (").map { String(m[..<$0.lowerBound]) } ?? m
        }
        switch (majorShort, subtype) {
        case let (m?, s?): return "\(m) (\(s))"
        case let (m?, nil): return m
        case let (nil, s?): return s
        default: return String(format: "format 0x%08X", UInt32(bitPattern: format))
        }
    }
}
