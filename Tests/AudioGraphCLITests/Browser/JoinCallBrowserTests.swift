import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

/// Issue 36, items 1 and 4: the web page as a call client. Two real browsers, each with a recorded file as its
/// microphone (Chromium's fake capture device), open `/?session=standup#token=…`, press "Join with microphone"
/// and speak into `audiograph serve --run`'s call; a third page watches. The viewer sees both speakers'
/// sentences labelled with their names in speaking order, and the store keeps each sentence with its speaker.
/// Screenshots go to `.build/test-artifacts/`.
@Suite("Browser: joining a call from the web page", .enabled(if: HeadlessChromium.isAvailable, "no Chromium installed"))
struct JoinCallBrowserTests {
    static let config = """
        {"version": 1,
         "session": {"id": "standup", "room": "daily", "autoStartTranscription": true, "captions": true,
                     "participants": ["alice", "bob"]},
         "participant": {
           "nodes": {"in": {"type": "participant-source"}, "rs": {"type": "resampler", "sampleRate": 16000, "channels": 1},
                     "vad": {"type": "vad"}, "asr": {"type": "recognizer", "engine": "pocketsphinx"},
                     "level": {"type": "level-meter"}},
           "links": ["in -> rs -> level -> vad -> asr -> store"]},
         "nodes": {"store": {"type": "transcript-store", "path": "out/t.sqlite"}},
         "links": []}
        """

    /// `seconds` of the bundled call from `start` as a 48 kHz mono WAV (what a microphone gives), after `lead`
    /// seconds of silence and followed by 4 s of it (the last sentence ends before the file does).
    static func microphoneFile(_ name: String, from start: Int, lead: Int, in directory: TemporaryFolder) async throws -> String {
        let call = LiveCaptionsBrowserTests.packageRoot.appendingPathComponent("examples/audio/call.flac").path
        let sox = try await Harness.run(URL(fileURLWithPath: "/usr/bin/env"),
                                        ["sox", call, "-r", "48000", "-c", "1", "-b", "16", name, "trim", String(start), "8",
                                         "pad", String(lead), "4"], in: directory)
        guard sox.status == 0 else { throw HarnessError("sox failed: \(sox.stderr)") }
        return directory.path(name)
    }

    static func token(_ user: String, in directory: TemporaryFolder) async throws -> String {
        let created = try await Harness.audiograph(["tokens", "create", "--user", user, "--store", "out/t.sqlite"], in: directory)
        try #require(created.status == 0, "\(created)")
        return try #require(created.stdoutLines.last?.split(separator: " ").last.map(String.init), "\(created)")
    }

    /// A browser whose microphone plays `file` once (then silence).
    static func browser(microphone file: String?) async throws -> HeadlessChromium {
        var arguments = ["--autoplay-policy=no-user-gesture-required"]
        if let file {
            arguments += ["--use-fake-ui-for-media-stream", "--use-fake-device-for-media-stream",
                          "--use-file-for-fake-audio-capture=\(file)%noloop"]
        }
        return try await HeadlessChromium.launch(width: 1000, height: 800, commandTimeout: 60, extraArguments: arguments)
    }

    static let cutProxy = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("cut_proxy.py").path

    static let captionsByFinal = """
        [...document.querySelectorAll('#captions .caption.final')].map((e) => ({speaker: e.dataset.speaker,
          text: e.querySelector('.text').textContent, colour: e.querySelector('.speaker')?.dataset.colour}))
        """

    @Test func twoBrowsersJoinAndAThirdSeesBothLabelled() async throws {
        let directory = try TemporaryFolder()
        let aliceToken = try await Self.token("alice", in: directory)
        let bobToken = try await Self.token("bob", in: directory)
        // Chromium's fake microphone plays from getUserMedia on, while the page still sets up its AudioWorklet
        // (seconds on a loaded machine): each file starts with silence. Bob's has 9 s more, so he speaks after Alice.
        let aliceFile = try await Self.microphoneFile("alice.wav", from: 0, lead: 4, in: directory)
        let bobFile = try await Self.microphoneFile("bob.wav", from: 16, lead: 13, in: directory)
        try directory.write("call.json", Self.config)
        let server = try await ServeProcess.start(["serve", "--store", "out/t.sqlite", "--listen", "127.0.0.1:0",
                                                   "--run", "call.json"], in: directory)
        // Alice's page and the viewer reach the server through a relay that can cut their connections.
        let relay = ChildProcess()
        relay.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        relay.arguments = [Self.cutProxy, String(server.port)]
        relay.standardInput = FileHandle.nullDevice
        let proxy: AnnouncedProcess
        do {
            proxy = try await Harness.startAnnounced(relay, prefix: "listening ", name: "cut_proxy.py")
        } catch {
            _ = try? await server.stop()
            throw error
        }
        let relayed = "http://127.0.0.1:" + proxy.announcement
        var browsers: [HeadlessChromium] = []
        var viewerFinals: [(speaker: String, text: String)] = []
        do {
            let viewer = try await Self.browser(microphone: nil)
            browsers.append(viewer)
            try await viewer.navigate(relayed + "/?session=standup#token=" + aliceToken)
            try await viewer.waitUntil("document.getElementById('captions').dataset.state === 'streaming'",
                                       diagnostics: "document.getElementById('status').textContent")
            #expect(try await viewer.evaluate("location.hash") == "", "the token left the address bar")
            // The highest level each participant's bar shows, sampled every 50 ms from now on.
            _ = try await viewer.evaluate("""
                window.__peaks = {};
                setInterval(() => {
                  for (const item of document.querySelectorAll('#participants li')) {
                    const value = item.querySelector('meter').value;
                    window.__peaks[item.dataset.participant] = Math.max(window.__peaks[item.dataset.participant] || 0, value);
                  }
                }, 50);
                true
                """)
            #expect(try await viewer.evaluate("location.href.includes(\(HeadlessChromium.literal(aliceToken)))") == .bool(false))

            for (file, token, base) in [(aliceFile, aliceToken, relayed), (bobFile, bobToken, server.baseURL)] {
                let browser = try await Self.browser(microphone: file)
                browsers.append(browser)
                try await browser.navigate(base + "/?session=standup#token=" + token)
                try await browser.waitUntil("!document.getElementById('call').hidden",
                                            diagnostics: "[document.getElementById('status').textContent, document.getElementById('captions').dataset.state]")
                #expect(try await browser.evaluate("document.getElementById('join').textContent") == "Join with microphone")
                #expect(try await browser.evaluate("document.getElementById('voice-processing').checked") == .bool(true),
                        "echo cancellation, noise suppression and gain control are on by default")
                // A file is not a room: the browser's voice processing would distort it.
                try await browser.click("#voice-processing")
                try await browser.click("#join")
                try await browser.waitUntil("document.getElementById('call').dataset.state === 'joined'", timeout: 30,
                                            diagnostics: "document.getElementById('call-status').textContent")
                #expect(try await browser.evaluate("document.getElementById('leave').textContent") == "Leave")
                #expect(try await browser.evaluate("document.getElementById('join').hidden") == .bool(true))
            }

            // The network blinks for Alice mid-sentence: her page reconnects by itself and sends what it captured
            // meanwhile; the viewer's caption stream blinks too and resumes where it was.
            try await viewer.waitUntil("document.querySelector('#captions .caption[data-speaker=\"alice\"]')", timeout: 60,
                                       diagnostics: "document.getElementById('captions').outerHTML")
            let shownBefore = try await viewer.evaluate("document.querySelectorAll('#captions .caption').length").intValue ?? 0
            proxy.process.signal(SIGUSR1)
            try await browsers[1].waitUntil("document.getElementById('call').dataset.state === 'reconnecting'", timeout: 15,
                                            diagnostics: "document.getElementById('call-status').textContent")
            try await browsers[1].waitUntil("document.getElementById('call').dataset.state === 'joined'", timeout: 30,
                                            diagnostics: "document.getElementById('call-status').textContent")
            try await viewer.waitUntil("document.getElementById('captions').dataset.state === 'streaming'", timeout: 30,
                                       diagnostics: "[document.getElementById('captions').dataset.state, document.getElementById('status').textContent]")
            #expect((try await viewer.evaluate("document.querySelectorAll('#captions .caption').length").intValue ?? 0) >= shownBefore,
                    "what was shown stays shown")

            // The viewer lists both, connected, and shows each one's level (the server's level-meter readings).
            try await viewer.waitUntil("""
                ['alice', 'bob'].every((name) => document.querySelector(`#participants li[data-participant="${name}"][data-connected="true"]`))
                """, timeout: 30, diagnostics: "document.getElementById('participants').outerHTML")
            try await viewer.waitUntil("Object.values(window.__peaks).some((peak) => peak > 0.2)", timeout: 60,
                                       interval: .milliseconds(100), diagnostics: "window.__peaks")

            // Both speakers' finals reach the viewer, labelled, Alice's before Bob's.
            try await viewer.waitUntil("""
                (() => {
                  const finals = \(Self.captionsByFinal);
                  const text = (who) => finals.filter((f) => f.speaker === who).map((f) => f.text).join(' ');
                  // Alice's sentence was cut by the relay: words from both sides of the cut.
                  const heard = ['john', 'leisure', 'prickly', 'power'].filter((word) => text('alice').includes(word));
                  return heard.length >= 2 && text('bob').includes('forward');
                })()
                """, timeout: 120, interval: .milliseconds(250), diagnostics: Self.captionsByFinal)
            try await browsers[1].screenshot(to: LiveCaptionsBrowserTests.artifacts.appendingPathComponent("join-call-alice.png"))
            try await viewer.screenshot(to: LiveCaptionsBrowserTests.artifacts.appendingPathComponent("join-call-viewer.png"))
            let finals = try await viewer.evaluate(Self.captionsByFinal).arrayValue ?? []
            viewerFinals = finals.compactMap { final in
                final["speaker"]?.stringValue.flatMap { speaker in final["text"]?.stringValue.map { (speaker, $0) } }
            }
            let speakers = finals.compactMap { $0["speaker"]?.stringValue }
            let firstBob = try #require(speakers.firstIndex(of: "bob"))
            #expect(!speakers[firstBob...].contains("alice"), "speaking order: alice, then bob: \(finals)")
            let colours = Dictionary(finals.compactMap { final -> (String, String)? in
                guard let speaker = final["speaker"]?.stringValue, let colour = final["colour"]?.stringValue else { return nil }
                return (speaker, colour)
            }, uniquingKeysWith: { first, _ in first })
            #expect(colours["alice"] != nil && colours["alice"] != colours["bob"], "a colour of their own: \(colours)")

            // Alice mutes: the viewer sees it; she unmutes.
            try await browsers[1].click("#mute")
            #expect(try await browsers[1].evaluate("document.getElementById('mute').getAttribute('aria-pressed')") == "true")
            try await viewer.waitUntil("document.querySelector('#participants li[data-participant=\"alice\"]').dataset.muted === 'true'",
                                       diagnostics: "document.getElementById('participants').outerHTML")
            #expect(try await viewer.evaluate("document.querySelector('#participants li[data-participant=\"alice\"] .presence').textContent") == "muted")
            try await browsers[1].click("#mute")
            try await viewer.waitUntil("document.querySelector('#participants li[data-participant=\"alice\"]').dataset.muted === 'false'",
                                       diagnostics: "document.getElementById('participants').outerHTML")

            // Leave: the microphone is released and the call panel goes back to "Join with microphone".
            for browser in browsers.dropFirst() {
                try await browser.click("#leave")
                try await browser.waitUntil("document.getElementById('call').dataset.state === 'idle'")
                #expect(try await browser.evaluate("document.getElementById('join').hidden") == .bool(false))
            }
            try await viewer.waitUntil("""
                [...document.querySelectorAll('#participants li')].map((li) => li.dataset.connected).join() === 'false,false'
                """, diagnostics: "document.getElementById('participants').outerHTML")
            let violations = browsers.flatMap { $0.browserLog() }.filter { $0.contains("Content Security Policy") }
            #expect(violations.isEmpty, "\(violations)")
        } catch {
            for (index, browser) in browsers.enumerated() {
                try? await browser.screenshot(to: LiveCaptionsBrowserTests.artifacts.appendingPathComponent("join-call-failure-\(index).png"))
            }
            for browser in browsers { await browser.close() }
            proxy.process.signal(SIGKILL)
            _ = try? await proxy.exit.value
            _ = try? await server.stop()
            throw error
        }
        for browser in browsers { await browser.close() }
        proxy.process.signal(SIGKILL)
        _ = try? await proxy.exit.value
        let exit = try await server.stop()
        #expect(exit.isClean, "\(exit)")

        // The store keeps every final with its speaker.
        let store = try SQLiteTranscriptStore(readingFrom: directory.path("out/t.sqlite"))
        defer { store.close() }
        let tid = try #require(try store.transcripts(sessionID: "standup", after: nil, limit: 10)
            .compactMap { $0[StoreColumn.tid]?.description }.first)
        let stored = try #require(try store.transcript(tid: tid)?.utterances)
        let alice = stored.filter { $0.speaker == "alice" }.map(\.text).joined(separator: " ")
        let bob = stored.filter { $0.speaker == "bob" }.map(\.text).joined(separator: " ")
        let listing = stored.map { "\($0.speaker ?? "-") \($0.segment) \($0.text)" }
        #expect(bob.contains("forward") && !alice.contains("forward"), "alice: \(alice) | bob: \(bob) | \(listing)")
        // Nothing the viewer was shown is missing from the store: the cut lost no final.
        for final in viewerFinals {
            #expect(stored.contains { $0.speaker == final.speaker && $0.text == final.text }, "\(final) not stored: \(listing)")
        }
        #expect(stored.allSatisfy { $0.speaker != nil }, "\(stored)")
    }
}
