import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing

/// The headless Chromium driver itself, on a `data:` page (no server).
@Suite("Browser: headless Chromium driver", .enabled(if: HeadlessChromium.isAvailable, "no Chromium installed"))
struct HeadlessChromiumBrowserTests {
    static let page = """
        <!doctype html><html><head><title>driver test</title></head><body>
        <input id="name"><button id="go">Go</button><p id="out"></p>
        <script>
        document.getElementById('go').addEventListener('click', () => {
          setTimeout(() => {
            document.getElementById('out').textContent = 'hello ' + document.getElementById('name').value;
          }, 100);
        });
        console.log('page ready');
        </script></body></html>
        """

    static var dataURL: String {
        "data:text/html;base64," + Data(page.utf8).base64EncodedString()
    }

    @Test func drivesAPage() async throws {
        let browser = try await HeadlessChromium.launch()
        do {
            try await browser.navigate(Self.dataURL)
            #expect(try await browser.evaluate("document.title") == .string("driver test"))
            #expect(try await browser.evaluate("1 + 2") == .number(3))
            #expect(try await browser.evaluate("({a: [true, null, 'x'], b: 1.5})")
                    == .object(["a": [true, nil, "x"], "b": 1.5]))
            #expect(try await browser.evaluate("undefined") == .null)
            // A promise is awaited.
            #expect(try await browser.evaluate("new Promise(resolve => setTimeout(() => resolve(7), 10))") == .number(7))
            // Window size from launch.
            #expect(try await browser.evaluate("[innerWidth, innerHeight]") == [1000, 700])

            // Keyboard input and a mouse click; the answer comes later (a timer), so waitUntil polls.
            try await browser.type("world", into: "#name")
            try await browser.click("#go")
            try await browser.waitUntil("document.getElementById('out').textContent === 'hello world'", timeout: 10,
                                        diagnostics: "document.getElementById('out').textContent")
            #expect(browser.browserLog().contains("console.log: page ready"))

            // A thrown exception becomes an error with its description.
            await #expect(throws: HeadlessChromium.Failure.self) {
                try await browser.evaluate("(() => { throw new Error('boom') })()")
            }
            // waitUntil gives up after its timeout.
            await #expect(throws: HeadlessChromium.Failure.self) {
                try await browser.waitUntil("false", timeout: 0.3)
            }

            let folder = try TemporaryFolder(prefix: "audiograph-driver")
            let shot = folder.url.appendingPathComponent("shot.png")
            try await browser.screenshot(to: shot)
            let png = try Data(contentsOf: shot)
            #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
            // The PNG's IHDR: width and height (big-endian) at bytes 16...23.
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
            let height = png[20..<24].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 1000 && height == 700)
        } catch {
            await browser.close()
            throw error
        }
        await browser.close()
        #expect(!FileManager.default.fileExists(atPath: browser.profile.path))
        #expect(kill(browser.pid, 0) != 0, "the browser should have exited")
    }

    @Test func navigationErrorsAndSecondPage() async throws {
        let browser = try await HeadlessChromium.launch()
        do {
            try await browser.navigate("data:text/html,<title>one</title>")
            #expect(try await browser.evaluate("document.title") == .string("one"))
            try await browser.navigate("data:text/html,<title>two</title>")
            #expect(try await browser.evaluate("document.title") == .string("two"))
            // A Content-Security-Policy violation shows in the log.
            let policy = "<meta http-equiv='Content-Security-Policy' content=\"default-src 'self'\">"
                + "<script>document.title = 'inline ran'</script>"
            try await browser.navigate("data:text/html;base64," + Data(policy.utf8).base64EncodedString())
            #expect(try await browser.evaluate("document.title") != .string("inline ran"))
            #expect(browser.browserLog().contains { $0.contains("Content Security Policy") }, "\(browser.browserLog())")
            // Nothing listens on port 9 (discard) of localhost: the navigation fails with Chromium's error text.
            await #expect(throws: HeadlessChromium.Failure.self) {
                try await browser.navigate("http://127.0.0.1:9/")
            }
        } catch {
            await browser.close()
            throw error
        }
        await browser.close()
    }
}
