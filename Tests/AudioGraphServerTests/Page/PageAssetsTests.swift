@testable import AudioGraphServer
import AudioGraphTestKit
import Foundation
import Testing

/// The page's JavaScript and CSS are files of the repository (Sources/AudioGraphServer/WebPage/Assets), embedded
/// in the binary at build time; the served script must parse (`node --check`, Debian's nodejs).
@Suite struct PageAssetsTests {
    static let assets = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/AudioGraphServer/WebPage/Assets")

    @Test(arguments: [("/", "index.html"), ("/app.js", "app.js"), ("/app.css", "app.css"),
                      ("/capture-worklet.js", "capture-worklet.js")])
    func servedAsInTheRepository(path: String, file: String) throws {
        let served = try #require(WebPage.asset(path: path)).body
        #expect(served == (try String(contentsOf: Self.assets.appendingPathComponent(file), encoding: .utf8)),
                "\(file) in the binary is the file in the repository")
    }

    @Test(arguments: ["/app.js", "/capture-worklet.js"])
    func scriptParses(path: String) async throws {
        let folder = try TemporaryFolder(prefix: "page-js")
        let script = folder.path("served.js")
        try #require(WebPage.asset(path: path)).body.write(toFile: script, atomically: true, encoding: .utf8)
        let node = ChildProcess()
        node.executableURL = URL(fileURLWithPath: "/usr/bin/node")
        node.arguments = ["--check", script]
        node.standardInput = nil
        let errors = Pipe()
        node.standardError = errors
        try node.run()
        let status = await node.exited().status
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 0, "node --check \(path): \(message)")
    }

    /// The checker is not a formality: a script with a syntax error fails it.
    @Test func aBrokenScriptFailsTheCheck() async throws {
        let folder = try TemporaryFolder(prefix: "page-js")
        let script = folder.path("broken.js")
        try (WebPage.appJS + "\nfunction (\n").write(toFile: script, atomically: true, encoding: .utf8)
        let node = ChildProcess()
        node.executableURL = URL(fileURLWithPath: "/usr/bin/node")
        node.arguments = ["--check", script]
        node.standardInput = nil
        node.standardError = FileHandle.nullDevice
        try node.run()
        #expect(await node.exited().status != 0)
    }
}
