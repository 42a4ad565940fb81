// swift-tools-version:6.0
import PackageDescription

// An audiograph plugin: a shared library that adds the recognizer engine `keyword-spotter` (pocketsphinx's
// keyphrase search). Build it with `swift build -c release` (or scripts/build-plugins.sh at the repository
// root), then name the libKeywordSpotterPlugin.so it prints in a config's "plugins" and select the engine with
// the recognizer node's "engine": "keyword-spotter".
let package = Package(
    name: "KeywordSpotterPlugin",
    products: [
        .library(name: "KeywordSpotterPlugin", type: .dynamic, targets: ["KeywordSpotterPlugin"]),
    ],
    dependencies: [
        .package(name: "audiograph", path: "../../.."),
    ],
    targets: [
        // pocketsphinx, declared here: the audiograph package's C targets are not products a plugin can use.
        .systemLibrary(name: "CSphinxKWS", pkgConfig: "pocketsphinx",
                       providers: [.apt(["libpocketsphinx-dev", "libsphinxbase-dev", "pocketsphinx-en-us"])]),
        .target(name: "KeywordSpotterPlugin",
                dependencies: [.product(name: "AudioGraphPluginKit", package: "audiograph"), "CSphinxKWS"],
                swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
