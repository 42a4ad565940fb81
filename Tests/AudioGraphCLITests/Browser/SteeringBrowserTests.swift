import AudioGraphTestKit
import AudioGraphCore
import Foundation
import Testing

/// Issue 17, item 4: the steering controls in a real browser against the real server. `audiograph run` with a
/// `serve` block transcribes speech in real time (pocketsphinx, the call read at 1x) with both controls shown;
/// headless Chromium logs in, starts transcription, turns captions on and sees them arrive as the labels flip;
/// hiding captions clears them; stopping transcription clears them and no caption comes after. A second
/// pipeline, run by `serve --run` with the default settings, has no controls on the page at all, and when it
/// ends the stored list shows it without a refresh, its transcript with the three downloads. Screenshots go to
/// `.build/test-artifacts/`.
@Suite("Browser: steering a live session from the web page", .enabled(if: HeadlessChromium.isAvailable, "no Chromium installed"))
struct SteeringBrowserTests {
    static let artifacts = LiveCaptionsBrowserTests.artifacts

    /// The live-captions test's pipeline (real-time file → resampler → VAD → pocketsphinx → store) with another
    /// session block. Shown: both controls, transcription off at the start, a level meter, served by the run itself. Else the
    /// default settings with transcription on, and no serve block (for `serve --run`).
    static func config(id: String, audio: String, shown: Bool) throws -> String {
        let base = try JSONSerialization.jsonObject(with: Data(LiveCaptionsBrowserTests.config(audio: audio).utf8))
        var object = try #require(base as? [String: Any])
        var session: [String: Any] = ["id": id, "participants": ["alice"]]
        if shown {
            session["hideTranscriptionButton"] = false
            session["hideClosedCaptionButton"] = false
            // With a level meter: the page shows the live level.
            var nodes = try #require(object["nodes"] as? [String: Any])
            nodes["lvl"] = ["type": "level-meter"]
            object["nodes"] = nodes
            object["links"] = ["src -> lvl -> rs -> vad -> asr -> store"]
        } else {
            session["autoStartTranscription"] = true
            object.removeValue(forKey: "serve")
        }
        object["session"] = session
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    /// Counts `.caption` elements added to #captions from the moment it is installed.
    static let captionCounter = """
        (() => {
          window.__captionsAdded = 0;
          new MutationObserver((mutations) => {
            for (const m of mutations) for (const node of m.addedNodes) {
              if (node.classList && node.classList.contains('caption')) window.__captionsAdded += 1;
            }
          }).observe(document.getElementById('captions'), { childList: true });
          return true;
        })()
        """

    static func label(_ id: String) -> String { "(document.getElementById('\(id)') || {}).textContent" }

    @Test func bothControlsSteerTheSessionAndDefaultsShowNone() async throws {
        let directory = try TemporaryFolder()
        let created = try await Harness.audiograph(["tokens", "create", "--user", "alice", "--store", "out/transcripts.sqlite"], in: directory)
        try #require(created.status == 0, "\(created)")
        let token = try #require(created.stdoutLines.last?.split(separator: " ").last.map(String.init), "\(created)")
        let call = LiveCaptionsBrowserTests.packageRoot.appendingPathComponent("examples/audio/call.flac").path
        let long = try await LiveCaptionsBrowserTests.makeLongCall(in: directory)
        _ = try directory.write("steer.json", try Self.config(id: "steered", audio: long, shown: true))
        _ = try directory.write("plain.json", try Self.config(id: "plain", audio: call, shown: false))

        let run = try LiveRun(config: "steer.json", in: directory)
        let url: String
        do { url = try await run.servingURL() } catch {
            _ = await run.stop()
            throw error
        }
        let browser = try await HeadlessChromium.launch(width: 1000, height: 760)
        do {
            try await steer(browser, url: url, token: token, run: run)
        } catch {
            try? await browser.screenshot(to: Self.artifacts.appendingPathComponent("steering-failure.png"))
            await browser.close()
            _ = await run.stop()
            throw error
        }

        // The default settings: the same page has no controls for that session.
        let plain = try LiveRun(arguments: ["serve", "--store", "out/transcripts.sqlite", "--listen", "127.0.0.1:0",
                                            "--run", "plain.json"], in: directory)
        do {
            let plainURL = try await plain.servingURL()
            try await defaultsShowNoControls(browser, url: plainURL, token: token)
        } catch {
            try? await browser.screenshot(to: Self.artifacts.appendingPathComponent("steering-defaults-failure.png"))
            await browser.close()
            _ = await plain.stop()
            throw error
        }
        await browser.close()
        let exit = await plain.stop()
        let plainErrors = await plain.stderr()
        #expect(exit.status == 0 && !exit.timedOut, "\(exit)\n\(plainErrors)")
    }

    private func login(_ browser: HeadlessChromium, url: String, token: String, session: String) async throws {
        try await browser.navigate(url + "/")
        try await browser.waitUntil("document.body.dataset.view === 'login'")
        try await browser.type(token, into: "#token")
        try await browser.click("#login")
        let live = "#live-sessions button.live-session[data-session='\(session)']"
        try await browser.waitUntil("document.body.dataset.view === 'app' && document.querySelector(\(HeadlessChromium.literal(live)))",
                                    diagnostics: "document.getElementById('status').textContent")
        try await browser.click(live)
        // The first state event has been rendered.
        try await browser.waitUntil("document.getElementById('session-controls').dataset.transcribing !== undefined",
                                    diagnostics: "[document.getElementById('captions').dataset.state, document.getElementById('status').textContent]")
    }

    private func steer(_ browser: HeadlessChromium, url: String, token: String, run: LiveRun) async throws {
        try await login(browser, url: url, token: token, session: "steered")
        let status = "document.getElementById('status').textContent"
        #expect(try await browser.evaluate(Self.label("toggle-transcription")) == "Start Transcription")
        #expect(try await browser.evaluate(Self.label("toggle-captions")) == "Show Captions")
        // The picker offers what the engine can do (pocketsphinx here: en-US only) and shows the session's language.
        let options = try await browser.evaluate("[...document.querySelectorAll('#caption-language option')].map((o) => o.value)")
        #expect(options == .array(["en-US"]), "\(options)")
        #expect(try await browser.evaluate("document.getElementById('caption-language').value") == "en-US")
        // The live level, with transcription still off.
        try await browser.waitUntil("!document.getElementById('level-meter').hidden && document.getElementById('level-meter').value > 0",
                                    timeout: 30, diagnostics: "document.getElementById('level-meter').outerHTML")
        try await browser.screenshot(to: Self.artifacts.appendingPathComponent("steering-controls.png"))

        // Start transcription, captions on: the labels flip and captions arrive, each with its time.
        try await browser.click("#toggle-transcription")
        try await browser.waitUntil("\(Self.label("toggle-transcription")) === 'Stop Transcription'", diagnostics: status)
        #expect(try await browser.evaluate("document.querySelector('#captions .caption')") == .null, "captions are still off")
        try await browser.click("#toggle-captions")
        try await browser.waitUntil("\(Self.label("toggle-captions")) === 'Hide Captions'", diagnostics: status)
        try await browser.waitUntil("document.querySelector('#captions .caption .text') && document.querySelector('#captions .caption .text').textContent.length > 0",
                                    timeout: 60, diagnostics: "document.getElementById('captions').innerHTML")
        let time = try await browser.evaluate("document.querySelector('#captions .caption .time').textContent")
        #expect(time.stringValue?.wholeMatch(of: /\d+:\d\d\.\d/) != nil, "\(time)")
        try await browser.screenshot(to: Self.artifacts.appendingPathComponent("steering-captions.png"))

        // Hide captions: they clear; the label flips back.
        try await browser.click("#toggle-captions")
        try await browser.waitUntil("\(Self.label("toggle-captions")) === 'Show Captions' && !document.querySelector('#captions .caption')",
                                    diagnostics: "document.getElementById('captions').innerHTML")
        // On again: captions come back while transcription runs.
        try await browser.click("#toggle-captions")
        try await browser.waitUntil("\(Self.label("toggle-captions")) === 'Hide Captions'", diagnostics: status)
        try await browser.waitUntil("document.querySelector('#captions .caption')", timeout: 60,
                                    diagnostics: "document.getElementById('captions').innerHTML")

        // Stop transcription: captions clear, and none comes after. Two more commands go through the graph after
        // the stop (hide, show); once both are acknowledged the audio after the stop has been seen, and still no
        // caption appeared.
        try await browser.click("#toggle-transcription")
        try await browser.waitUntil("\(Self.label("toggle-transcription")) === 'Start Transcription' && !document.querySelector('#captions .caption')",
                                    diagnostics: "document.getElementById('captions').innerHTML")
        #expect(try await browser.evaluate(Self.captionCounter) == true)
        try await browser.click("#toggle-captions")
        try await browser.waitUntil("\(Self.label("toggle-captions")) === 'Show Captions'", diagnostics: status)
        try await browser.click("#toggle-captions")
        try await browser.waitUntil("\(Self.label("toggle-captions")) === 'Hide Captions'", diagnostics: status)
        #expect(try await browser.evaluate("window.__captionsAdded") == .number(0))
        #expect(try await browser.evaluate("document.querySelector('#captions .caption')") == .null)
        try await browser.screenshot(to: Self.artifacts.appendingPathComponent("steering-stopped.png"))
        #expect(try await browser.evaluate("document.getElementById('status').dataset.kind") == "info")
        let violations = browser.browserLog().filter { $0.contains("Content Security Policy") }
        #expect(violations.isEmpty, "\(violations)")

        // The run ends: the controls go with it.
        run.interrupt()
        try await browser.waitUntil("document.getElementById('captions').dataset.state === 'ended'", timeout: 30)
        #expect(try await browser.evaluate("document.getElementById('session-controls').children.length") == .number(0))
        let exit = await run.stop()
        let errors = await run.stderr()
        #expect(exit.status == 130 && !exit.timedOut, "\(exit)\n\(errors)")
    }

    private func defaultsShowNoControls(_ browser: HeadlessChromium, url: String, token: String) async throws {
        try await login(browser, url: url, token: token, session: "plain")
        #expect(try await browser.evaluate("document.getElementById('session-controls').children.length") == .number(0))
        for id in ["toggle-transcription", "toggle-captions", "caption-language"] {
            #expect(try await browser.evaluate("document.getElementById('\(id)')") == .null, "\(id) is on the page")
        }
        #expect(try await browser.evaluate("document.body.textContent.includes('Start Transcription')") == .bool(false))
        #expect(try await browser.evaluate("document.getElementById('level-meter').hidden") == .bool(true), "no level meter in this pipeline")
        try await browser.screenshot(to: Self.artifacts.appendingPathComponent("steering-defaults.png"))
        // The call (24 s) ends by itself; the server stays. The stored list shows it without a refresh.
        // (It may be listed already, from its first finals: what counts is that the page reloads the list itself.)
        #expect(try await browser.evaluate("""
            (() => {
              window.__callsReloads = 0;
              new MutationObserver(() => {
                if (document.getElementById('calls').dataset.state === 'loading') window.__callsReloads += 1;
              }).observe(document.getElementById('calls'), { attributes: true, attributeFilter: ['data-state'] });
              return true;
            })()
            """) == true)
        try await browser.waitUntil("document.getElementById('captions').dataset.state === 'ended'", timeout: 90)
        try await browser.waitUntil("window.__callsReloads >= 1 && document.getElementById('calls').dataset.state === 'ready' "
                                    + "&& document.querySelector(\"#calls button.call[data-session='plain']\")", timeout: 30,
                                    diagnostics: "[window.__callsReloads, document.getElementById('calls').textContent]")
        // Its transcript offers the three downloads.
        try await browser.click("#calls button.call[data-session='plain']")
        try await browser.waitUntil("document.querySelector('#transcripts button.transcript')")
        try await browser.click("#transcripts button.transcript")
        try await browser.waitUntil("document.querySelectorAll('#downloads button.download').length === 3")
        try await browser.screenshot(to: Self.artifacts.appendingPathComponent("steering-stored.png"))
        // A download goes through fetch with the token in its header (the browser is told to save nothing).
        _ = try await browser.send("Browser.setDownloadBehavior", ["behavior": "deny"], toBrowser: true)
        try await browser.click("#download-vtt")
        try await browser.waitUntil("document.getElementById('status').textContent.startsWith('Downloaded ')",
                                    diagnostics: "document.getElementById('status').textContent")
        let fetched = try await browser.evaluate(
            "performance.getEntriesByType('resource').map((e) => e.name).filter((n) => n.endsWith('.vtt'))")
        #expect(fetched.arrayValue?.count == 1 && fetched.arrayValue?.first?.stringValue?.contains(token) == false, "\(fetched)")
    }
}
