// swift-tools-version:6.0
import PackageDescription

// An audiograph plugin: a shared library that adds the `gain` node type. Build it with
// `swift build -c release`, then name .build/release/libGainPlugin.so in a config's "plugins".
let package = Package(
    name: "GainPlugin",
    products: [
        .library(name: "GainPlugin", type: .dynamic, targets: ["GainPlugin"]),
    ],
    dependencies: [
        .package(name: "audiograph", path: "../../.."),
    ],
    targets: [
        .target(name: "GainPlugin", dependencies: [.product(name: "AudioGraphPluginKit", package: "audiograph")],
                swiftSettings: [.swiftLanguageMode(.v6)]),
        // Plugin authors test their nodes with the harness the project uses (AudioGraphTestKit).
        .testTarget(name: "GainPluginTests",
                    dependencies: ["GainPlugin", .product(name: "AudioGraphTestKit", package: "audiograph")],
                    swiftSettings: [.swiftLanguageMode(.v6)]),
    ]
)
