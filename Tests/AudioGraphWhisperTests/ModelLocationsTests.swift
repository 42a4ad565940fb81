import AudioGraphTestKit
import Testing
@testable import AudioGraphWhisper

/// Issue 15, install: models live in the project's XDG data folder.
@Suite(.ownThreads) struct ModelLocationsTests {
    @Test func explicitFolderWins() {
        #expect(WhisperModelLocations.folder(environment: ["AUDIOGRAPH_MODELS_DIR": "/m", "XDG_DATA_HOME": "/x"]) == "/m")
    }

    @Test func xdgDataHomeThenHome() {
        #expect(WhisperModelLocations.folder(environment: ["XDG_DATA_HOME": "/x", "HOME": "/h"]) == "/x/audiograph/models")
        #expect(WhisperModelLocations.folder(environment: ["XDG_DATA_HOME": "relative", "HOME": "/h"])
            == "/h/.local/share/audiograph/models")
        #expect(WhisperModelLocations.defaultModelPath(environment: ["HOME": "/h"])
            == "/h/.local/share/audiograph/models/ggml-tiny.en.bin")
    }
}

/// The linked library is the version whose header the CWhisper module imports.
@Suite(.ownThreads) struct WhisperLibraryTests {
    @Test func linksTheHeadersVersion() {
        #expect(WhisperLibrary.version == "1.8.5")
    }
}
