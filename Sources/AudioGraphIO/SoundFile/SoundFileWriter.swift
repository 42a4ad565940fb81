import CSndFile
import Foundation

/// Containers the writer can produce.
public enum SoundFileContainer: String, Sendable, CaseIterable {
    case wav, flac, ogg

    /// The container for a file extension ("wav", "WAV", ".flac", "ogg", "oga"), or nil.
    public init?(pathExtension: String) {
        var ext = pathExtension.lowercased()
        if ext.hasPrefix(".") { ext.removeFirst() }
        switch ext {
        case "wav", "wave": self = .wav
        case "flac": self = .flac
        case "ogg", "oga": self = .ogg
        default: return nil
        }
    }
}

/// Sample formats the writer can produce.
///
/// Valid combinations: `.wav` with any; `.flac` with `.pcm16` or `.pcm24`; `.ogg` is always
/// Vorbis-encoded and accepts `.pcm16` or `.pcm24` (both mean "Vorbis"). `.float` is only
/// valid for `.wav`. Other combinations throw `SoundFileError` of kind `.unsupportedFormat`.
public enum SoundFileSampleFormat: String, Sendable, CaseIterable {
    case pcm16, pcm24, float
}

/// Writes interleaved 32-bit float frames to a WAV, FLAC or OGG/Vorbis file.
///
/// Integer formats clip out-of-range samples (libsndfile's `SFC_SET_CLIPPING`) instead of
/// wrapping around.
///
/// Confinement: a writer owns a libsndfile handle that is not safe to use from two threads
/// at once. Use each instance from one thread (or one task / actor) at a time; handing it
/// to another thread between calls is fine. The class is deliberately not `Sendable`.
public final class SoundFileWriter {
    public let path: String
    public let sampleRate: Int
    public let channels: Int
    public let container: SoundFileContainer
    public let sampleFormat: SoundFileSampleFormat
    public private(set) var framesWritten: Int64 = 0

    private var handle: OpaquePointer?

    public init(path: String, sampleRate: Int, channels: Int, container: SoundFileContainer,
                sampleFormat: SoundFileSampleFormat) throws(SoundFileError) {
        self.path = path
        self.sampleRate = sampleRate
        self.channels = channels
        self.container = container
        self.sampleFormat = sampleFormat

        func unsupported(_ why: String) -> SoundFileError {
            SoundFileError(kind: .unsupportedFormat, path: path, message: "cannot create \(path): \(why)")
        }
        guard sampleRate > 0, sampleRate <= Int(Int32.max) else {
            throw unsupported("invalid sample rate \(sampleRate)")
        }
        guard channels > 0, channels <= 1024 else {
            throw unsupported("invalid channel count \(channels)")
        }

        let major: Int
        let subtype: Int
        switch (container, sampleFormat) {
        case (.wav, .pcm16): (major, subtype) = (SF_FORMAT_WAV, SF_FORMAT_PCM_16)
        case (.wav, .pcm24): (major, subtype) = (SF_FORMAT_WAV, SF_FORMAT_PCM_24)
        case (.wav, .float): (major, subtype) = (SF_FORMAT_WAV, SF_FORMAT_FLOAT)
        case (.flac, .pcm16): (major, subtype) = (SF_FORMAT_FLAC, SF_FORMAT_PCM_16)
        case (.flac, .pcm24): (major, subtype) = (SF_FORMAT_FLAC, SF_FORMAT_PCM_24)
        case (.ogg, .pcm16), (.ogg, .pcm24): (major, subtype) = (SF_FORMAT_OGG, SF_FORMAT_VORBIS)
        case (.flac, .float), (.ogg, .float):
            throw unsupported("sample format 'float' is only supported in WAV files, not \(container.rawValue.uppercased()); use pcm16 or pcm24")
        }

        var info = SF_INFO()
        info.samplerate = Int32(sampleRate)
        info.channels = Int32(channels)
        info.format = Int32(major | subtype)
        guard sf_format_check(&info) != 0 else {
            throw unsupported("libsndfile cannot write \(container.rawValue.uppercased()) as \(sampleFormat.rawValue) with \(channels) channels at \(sampleRate) Hz")
        }

        let opened = sndFileOpen(path, mode: SFM_WRITE, info: &info)
        guard let handle = opened.handle else {
            let kind: SoundFileError.Kind
            switch Int(opened.errorCode) {
            case SF_ERR_UNRECOGNISED_FORMAT, SF_ERR_UNSUPPORTED_ENCODING: kind = .unsupportedFormat
            default: kind = .cannotCreate
            }
            throw SoundFileError(kind: kind, path: path, message: "cannot create \(path): \(opened.errorText)")
        }
        self.handle = handle
        if subtype == SF_FORMAT_PCM_16 || subtype == SF_FORMAT_PCM_24 {
            sf_command(handle, Int32(SFC_SET_CLIPPING), nil, Int32(SF_TRUE))
        }
    }

    deinit {
        if let handle { sf_close(handle) }
    }

    /// Writes interleaved frames; `samples.count` must be a multiple of `channels`.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(SoundFileError) {
        precondition(samples.count % channels == 0,
                     "\(samples.count) samples is not a whole number of \(channels)-channel frames")
        guard let handle else {
            throw SoundFileError(kind: .io, path: path, message: "cannot write \(path): the file is closed")
        }
        let frames = samples.count / channels
        guard frames > 0, let base = samples.baseAddress else { return }
        let written = sf_writef_float(handle, base, sf_count_t(frames))
        if written > 0 { framesWritten += written }
        if written != sf_count_t(frames) {
            throw SoundFileError(kind: .io, path: path,
                                 message: "cannot write \(path): \(sndFileCleanMessage(sf_strerror(handle)))")
        }
    }

    /// Rewrites the header for the frames written so far (`SFC_UPDATE_HEADER_NOW`), so a
    /// process killed later still leaves a readable file. Cheap enough to call once a second.
    /// No effect on containers without a length header, or after close.
    public func updateHeader() {
        // OGG has no length header: libsndfile's SFC_UPDATE_HEADER_NOW writes the Vorbis header packets
        // again mid-stream, which leaves a file libsndfile cannot open.
        guard container != .ogg else { return }
        if let handle { sf_command(handle, Int32(SFC_UPDATE_HEADER_NOW), nil, 0) }
    }

    /// Finishes the file (final header, encoder flush). Safe to call more than once;
    /// also done, without reporting errors, by deinit.
    public func close() throws(SoundFileError) {
        guard let handle else { return }
        self.handle = nil
        let rc = sf_close(handle)
        if rc != 0 {
            throw SoundFileError(kind: .io, path: path,
                                 message: "cannot finish \(path): \(sndFileCleanMessage(sf_error_number(rc)))")
        }
    }
}
