import Testing
@testable import AudioGraphIO

/// FFmpeg is loaded on first use (CFFmpegLoader): here it loads, and the error the reader and writer throw when it
/// cannot names the file, the loader's reason and the Debian packages. (The nodes' exit 69 is tested through the
/// binary, FFmpegLoadingTests, with a broken library in `LD_LIBRARY_PATH`.)
@Suite struct FFmpegLibrariesTests {
    @Test func theLibrariesLoadHere() throws {
        #expect(FFmpeg.loadFailure == nil)
        #expect(FFmpeg.unavailableReason == nil)
        #expect(FFmpeg.libraryNames.count == 4 && FFmpeg.libraryNames.first?.hasPrefix("libavutil.so.") == true)
        try FFmpeg.requireLibraries("open", "/x/in.m4a", kind: .unreadable)
    }

    @Test func aFailureNamesTheFileTheReasonAndThePackages() {
        let reason = "cannot load FFmpeg's libavutil.so.57: file too short"
        #expect {
            try FFmpeg.requireLibraries("create", "/x/out.m4a", kind: .cannotCreate, failure: reason)
        } throws: { error in
            guard let error = error as? FFmpegError else { return false }
            return error.kind == .cannotCreate && error.path == "/x/out.m4a"
                && error.message.hasPrefix("cannot create /x/out.m4a: \(reason); install FFmpeg's libraries (Debian: libavutil")
        }
    }
}
