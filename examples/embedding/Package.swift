// swift-tools-version:6.0
// An app that embeds audiograph as a library: builds a graph in code, registers its own node type, runs it
// and reads the events as an AsyncSequence. See README.md.
import PackageDescription

let package = Package(
    name: "embedding",
    platforms: [.macOS(.v15)],
    dependencies: [
        // This repository, two folders up. An app elsewhere would use its git URL instead.
        .package(name: "audiograph", path: "../.."),
    ],
    targets: [
        // The custom node, in a library so the app and the tests share it.
        .target(name: "ClipCounter",
                dependencies: [.product(name: "AudioGraph", package: "audiograph")],
                swiftSettings: [.swiftLanguageMode(.v6)]),
        .executableTarget(name: "embedding-demo",
                          dependencies: ["ClipCounter", .product(name: "AudioGraph", package: "audiograph")],
                          swiftSettings: [.swiftLanguageMode(.v6)]),
        .testTarget(name: "ClipCounterTests",
                    dependencies: ["ClipCounter", .product(name: "AudioGraph", package: "audiograph"),
                                   .product(name: "AudioGraphTestKit", package: "audiograph")],
                    swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
