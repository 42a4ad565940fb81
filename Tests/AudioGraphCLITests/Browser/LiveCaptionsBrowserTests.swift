import AudioGraphTestKit
import AudioGraphCore
import Foundation
import Synchronization
import Testing

/// The web page in a real browser against the real server: `audiograph run` with a `serve` block transcribes
/// speech in real time while headless Chromium logs in, watches the session's live captions and pages through
/// the stored session. Screenshots go to `.build/test-artifacts/` in the package.
@Suite("Browser: live captions in the web page", .enabled(if: HeadlessChromium.isAvailable, "no Chromium installed"))
struct LiveCaptionsBrowserTests {
    static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let artifacts = packageRoot.appendingPathComponent(".build/test-artifacts", isDirectory: true)
    static let sessionID = "browser-live"

    /// The audio (the call three times over), read in real time, transcribed with captions on, finals into the
    /// store that `serve` serves (and whose tokens it checks); `alice` took part.
    static func config(audio: String) -> String {
        """
        {
          "version": 1,
          "serve": { "listen": "127.0.0.1:0" },
          "session": {
            "id": "\(sessionID)",
            "room": "browser",
            "autoStartTranscription": true,
            "captions": true,
            "captionLanguage": "en-US",
            "participants": ["alice"]
          },
          "nodes": {
            "src":   { "type": "file-source", "path": \(JSONWriter.compact(.string(audio))), "realtime": true },
            "rs":    { "type": "resampler", "sampleRate": 16000, "channels": 1 },
            "vad":   { "type": "vad" },
            "asr":   { "type": "recognizer", "engine": "pocketsphinx" },
            "store": { "type": "transcript-store", "path": "out/transcripts.sqlite" }
          },
          "links": ["src -> rs -> vad -> asr -> store"]
        }
        """
    }

    /// Installed in the page before captions flow: a MutationObserver on #captions that records, per segment
    /// (and per screen, counting `clear`s), how many `.caption` elements it had at once, which elements it had
    /// over time, and the sequence of its (element, text, partial/final) states.
    static let recorder = """
        (() => {
          const box = document.getElementById('captions');
          const record = window.__captionRecord = { elements: {}, states: {}, maxAtOnce: {}, mutations: 0, screen: 0 };
          const ids = new WeakMap();
          let nextID = 1;
          const idOf = (element) => {
            if (!ids.has(element)) ids.set(element, nextID++);
            return ids.get(element);
          };
          let shown = false;
          const snapshot = () => {
            const captions = box.querySelectorAll('.caption');
            if (captions.length === 0 && shown) {
              record.screen += 1;
              shown = false;
            }
            const counts = {};
            for (const element of captions) {
              shown = true;
              const key = record.screen + ':' + element.dataset.segment;
              counts[key] = (counts[key] || 0) + 1;
              const id = idOf(element);
              const elements = record.elements[key] || (record.elements[key] = []);
              if (!elements.includes(id)) elements.push(id);
              const kind = element.classList.contains('final') ? 'final'
                : element.classList.contains('partial') ? 'partial' : 'other';
              const states = record.states[key] || (record.states[key] = []);
              const last = states[states.length - 1];
              if (!last || last.id !== id || last.text !== element.textContent || last.kind !== kind) {
                states.push({ id, text: element.textContent, kind });
              }
            }
            for (const [key, count] of Object.entries(counts)) {
              record.maxAtOnce[key] = Math.max(record.maxAtOnce[key] || 0, count);
            }
          };
          new MutationObserver(() => {
            record.mutations += 1;
            snapshot();
          }).observe(box, { childList: true, subtree: true, characterData: true, attributes: true });
          snapshot();
          return true;
        })()
        """

    /// True once some segment's one element showed two different partial texts and then turned final.
    static let replacedAndFixed = """
        (() => {
          const record = window.__captionRecord;
          return Object.values(record.states).some((states) => {
            const partials = new Set(states.filter((s) => s.kind === 'partial').map((s) => s.text));
            return partials.size >= 2 && states[states.length - 1].kind === 'final'
              && new Set(states.map((s) => s.id)).size === 1;
          });
        })()
        """

    /// `long.flac` in `directory`, the bundled call 8 times over (3 min 10 s); its path. A run playing it at 1x must
    /// outlast whatever the page does before the test stops it with Ctrl-C (a cold Chromium start on a busy machine
    /// included), or it ends by itself and exits 0: three times (71 s) once ran out under CI load.
    static func makeLongCall(in directory: TemporaryFolder) async throws -> String {
        let call = packageRoot.appendingPathComponent("examples/audio/call.flac").path
        let sox = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"), ["sox"] + Array(repeating: call, count: 8) + ["long.flac"],
                                        in: directory)
        guard sox.status == 0 else { throw HarnessError("sox failed: \(sox.stderr)") }
        return directory.path("long.flac")
    }

    @Test func captionsOfARunningSessionReplacePartialsInPlace() async throws {
        let directory = try TemporaryFolder()
        let created = try await Harness.audiograph(["tokens", "create", "--user", "alice",
                                                    "--store", "out/transcripts.sqlite"], in: directory)
        try #require(created.status == 0, "\(created)")
        let token = try #require(created.stdoutLines.last?.split(separator: " ").last.map(String.init),
                                 "\(created)")

        try directory.write("live.json", Self.config(audio: try await Self.makeLongCall(in: directory)))
        let run = try LiveRun(config: "live.json", in: directory)
        let url: String
        do {
            url = try await run.servingURL()
        } catch {
            _ = await run.stop()
            throw error
        }

        let browser = try await HeadlessChromium.launch(width: 1000, height: 700)
        do {
            try await exercisePage(browser, url: url, token: token, run: run)
        } catch {
            try? await browser.screenshot(to: Self.artifacts.appendingPathComponent("live-captions-failure.png"))
            await browser.close()
            _ = await run.stop()
            throw error
        }
        await browser.close()
    }

    private func exercisePage(_ browser: HeadlessChromium, url: String, token: String, run: LiveRun) async throws {
        try await browser.navigate(url + "/")
        try await browser.waitUntil("document.body.dataset.view === 'login'")

        // A wrong token: the server's error in the status line, still at the login form.
        try await browser.type("agt_not_a_token", into: "#token")
        try await browser.click("#login")
        try await browser.waitUntil("document.getElementById('status').dataset.kind === 'error'",
                                    diagnostics: "document.getElementById('status').textContent")
        let refused = try await browser.evaluate("document.getElementById('status').textContent")
        #expect(refused.stringValue?.hasPrefix("401 invalid_token: ") == true, "\(refused)")
        #expect(try await browser.evaluate("document.body.dataset.view") == "login")

        // Log in; the live session is listed.
        try await browser.type(token, into: "#token")
        try await browser.click("#login")
        let live = "#live-sessions button.live-session[data-session='\(Self.sessionID)']"
        try await browser.waitUntil("document.body.dataset.view === 'app' && document.querySelector(\(HeadlessChromium.literal(live)))",
                                    diagnostics: "document.getElementById('status').textContent")
        #expect(try await browser.evaluate("document.getElementById('token').value") == "",
                "the token field is cleared after login")

        // Watch the captions, recording every change.
        #expect(try await browser.evaluate(Self.recorder) == true)
        try await browser.click(live)
        try await browser.waitUntil("document.querySelector('#captions .caption')", timeout: 30,
                                    diagnostics: "[document.getElementById('captions').dataset.state, document.getElementById('status').textContent]")
        try await browser.waitUntil(Self.replacedAndFixed, timeout: 45, diagnostics: "window.__captionRecord")
        // The screenshot with a final and, under it, the next utterance's partial (the call has five utterances).
        try await browser.waitUntil("document.querySelector('#captions .caption.final ~ .caption.partial')", timeout: 30,
                                    diagnostics: "document.getElementById('captions').innerHTML")
        try await browser.screenshot(to: Self.artifacts.appendingPathComponent("live-captions.png"))

        let record = try await browser.evaluate("window.__captionRecord")
        let maxAtOnce = (record["maxAtOnce"]?.objectValue ?? [:]).entries
        #expect(!maxAtOnce.isEmpty)
        for (segment, count) in maxAtOnce {
            #expect(count == 1, "segment \(segment) had \(count) caption elements at once: \(record)")
        }
        for (segment, elements) in (record["elements"]?.objectValue ?? [:]).entries {
            #expect(elements.arrayValue?.count == 1, "segment \(segment) was shown by several elements: \(record)")
        }
        // One element per segment on screen, in the segments' order.
        let shown = try await browser.evaluate(
            "[...document.querySelectorAll('#captions .caption')].map((e) => Number(e.dataset.segment))")
        let segments = shown.arrayValue?.compactMap(\.intValue) ?? []
        #expect(segments == Array(Set(segments)).sorted(), "\(shown)")
        #expect(try await browser.evaluate("document.getElementById('status').dataset.kind") == "info")
        // The page runs under the server's Content-Security-Policy without violating it.
        let violations = browser.browserLog().filter { $0.contains("Content Security Policy") }
        #expect(violations.isEmpty, "\(violations)")

        // The token went only into headers: no URL the page loaded or shows holds it.
        let urls = try await browser.evaluate(
            "[location.href, ...performance.getEntriesByType('resource').map((e) => e.name)]")
        #expect(urls.arrayValue?.isEmpty == false)
        #expect(urls.arrayValue?.contains { $0.stringValue?.contains(token) != false } == false, "\(urls)")

        // The stored session (its finals are written as they come) and its transcript, through the page's
        // lists. Refresh until the store has the session: its row appears with the first final.
        let call = "#calls button.call[data-session='\(Self.sessionID)']"
        try await browser.waitUntil("""
            (() => {
              if (document.querySelector(\(HeadlessChromium.literal(call)))) return true;
              if (document.getElementById('calls').dataset.state !== 'loading') document.getElementById('refresh-calls').click();
              return false;
            })()
            """, timeout: 30, interval: .milliseconds(200), diagnostics: "document.getElementById('calls').textContent")
        try await browser.click(call)
        try await browser.waitUntil(
            "document.getElementById('transcripts').dataset.state === 'ready' && document.querySelector('#transcripts button.transcript')",
            diagnostics: "document.getElementById('status').textContent")
        try await browser.click("#transcripts button.transcript")
        try await browser.waitUntil("""
            (() => {
              const list = document.getElementById('utterances');
              if (list.querySelector('.utterance .text')) return true;
              if (list.dataset.state !== 'loading') document.querySelector('#transcripts button.transcript').click();
              return false;
            })()
            """, timeout: 30, interval: .milliseconds(200), diagnostics: "document.getElementById('status').textContent")
        try await browser.screenshot(to: Self.artifacts.appendingPathComponent("live-captions-stored.png"))

        // Ctrl-C: the server ends the caption stream with `end`; the run finalizes its outputs and exits 130
        // (interrupted, docs/config.md).
        run.interrupt()
        try await browser.waitUntil("document.getElementById('captions').dataset.state === 'ended'", timeout: 30,
                                    diagnostics: "[document.getElementById('captions').dataset.state, document.getElementById('status').textContent]")
        let exit = await run.stop()
        let errors = await run.stderr()
        #expect(exit.status == 130 && !exit.signalled && !exit.timedOut, "\(exit)\nstderr:\n\(errors)")
    }
}

/// `audiograph run CONFIG` running in the background: stderr read as it comes (for the serving line),
/// stdout into a file, a watchdog from `Harness.runToExit`.
final class LiveRun: Sendable {
    private let process: ChildProcess
    private let reader: PipeReader
    private let stderrPipe: Pipe
    private let exit: Task<Harness.Exit, any Error>

    convenience init(config: String, in directory: TemporaryFolder) throws {
        try self.init(arguments: ["run", config], in: directory)
    }

    /// `audiograph ARGUMENTS` (e.g. `serve … --run CONFIG`), which must print the serving line.
    init(arguments: [String], in directory: TemporaryFolder) throws {
        let process = ChildProcess()
        process.executableURL = try Harness.binary()
        process.arguments = arguments
        process.currentDirectoryURL = directory.url
        process.standardInput = FileHandle.nullDevice
        let outURL = directory.url.appendingPathComponent("run.stdout")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        stderrPipe = Pipe()
        process.standardError = stderrPipe
        let reader = PipeReader(stderrPipe)
        self.reader = reader
        self.process = process
        exit = Task { try await Harness.runToExit(process, onStart: { reader.start() }) }
    }

    /// Waits for `audiograph: serving http://HOST:PORT` on stderr and returns the URL.
    func servingURL() async throws -> String {
        let prefix = "audiograph: serving "
        let found = await reader.waitFor { lines in lines.contains { $0.hasPrefix(prefix) } }
        let text = await stderr()
        guard found, let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) else {
            throw HarnessError("the run ended before serving; stderr:\n\(text)")
        }
        return String(line.dropFirst(prefix.count)).trimmingCharacters(in: .whitespaces)
    }

    /// Sends SIGINT (Ctrl-C).
    func interrupt() {
        process.interrupt()
    }

    /// What stderr held so far (everything once the run has exited).
    func stderr() async -> String {
        let copy = DataBox()
        // The condition sees the bytes read so far (and, as it answers true, returns at once).
        _ = await reader.waitFor(data: { data in
            copy.data.withLock { $0 = data }
            return true
        })
        return String(decoding: copy.data.withLock { $0 }, as: UTF8.self)
    }

    private final class DataBox: Sendable {
        let data = Mutex(Data())
    }

    /// Interrupts the run if it still runs and waits for it to exit.
    func stop() async -> Harness.Exit {
        if process.isRunning { process.interrupt() }
        let status = (try? await exit.value) ?? Harness.Exit(status: -1, signalled: false, timedOut: false)
        _ = await reader.all()
        return status
    }
}
