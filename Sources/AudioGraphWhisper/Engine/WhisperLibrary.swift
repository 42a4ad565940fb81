import CWhisper

/// The whisper.cpp library this build links.
public enum WhisperLibrary {
    /// Its version ("1.8.5"); `whisper_full_params` crosses by value, so the header and library must agree.
    public static var version: String { String(cString: whisper_version()) }
}
