/// Issue 35, item 7: `audiograph join` against a real `audiograph serve --run` call (pocketsphinx, so the text is
/// the same on every machine), and every way it fails, each with its exit status; item 8's client that vanishes
/// without a close frame (SIGKILL mid-sentence) still has its last sentence finalized and stored.
import AudioGraph
import AudioGraphTestKit
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("join: a participant's file or microphone into a live call")
struct JoinCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// 7.1 s of read speech, 44.1 kHz stereo: the server resamples it.
    static let speech = root.appendingPathComponent("examples/audio/librivox_0870_44k_stereo.flac").path
    /// The 24 s call.
    static let call = root.appendingPathComponent("examples/audio/call.flac").path

    /// A call of alice and bob, stored to the fixture's store; with `partials`, the recognizer shows partials
    /// (a call's graph does not run "in real time" for the recognizer's `auto`).
    static func startCall(in dir: TemporaryFolder, ingestRate: String = "20", partials: Bool = false) async throws -> (ServeProcess, ServeFixture) {
        let fixture = try ServeFixture.make(in: dir, standupCount: 1)
        var config = ServeCallTests.config(store: fixture.storePath)
        if partials {
            config = config.replacingOccurrences(of: #""engine": "pocketsphinx"}"#, with: #""engine": "pocketsphinx", "partials": "on"}"#)
        }
        try dir.write("call.json", config)
        let server = try await ServeProcess.start(fixture.serveArguments + ["--max-ingest-rate", ingestRate, "--run", "call.json"],
                                                  in: dir)
        return (server, fixture)
    }

    /// `audiograph join ARGUMENTS` started in the background; returns once it printed "audiograph: joined" (its
    /// WebSocket is open).
    static func startJoin(_ arguments: [String], in dir: TemporaryFolder) async throws -> AnnouncedProcess {
        let process = ChildProcess()
        process.executableURL = try Harness.binary()
        process.arguments = ["join"] + arguments
        process.currentDirectoryURL = dir.url
        process.standardInput = FileHandle.nullDevice
        return try await Harness.startAnnounced(process, prefix: "audiograph: joined ", name: "audiograph join")
    }

    @Test func sendsAFileAndPrintsTheCaptionsWithNames() async throws {
        let dir = try TemporaryFolder()
        let (server, fixture) = try await Self.startCall(in: dir)
        let joined: CLIResult
        do {
            // The token from the environment; 20x (the server's --max-ingest-rate); --linger long enough for a
            // loaded machine, ended by the condition (the last sentence's final) long before.
            joined = try await Harness.run(try Harness.binary(), ["join", server.url("/v1/sessions/standup"), "--speaker", "alice",
                                                                  "--rate", "20", "--linger", "60", Self.speech],
                                           in: dir, environment: ProcessInfo.processInfo.environment.merging(
                                               ["AUDIOGRAPH_TOKEN": fixture.aliceToken]) { $1 })
        } catch {
            _ = try? await server.stop()
            throw error
        }
        let exit = try await server.stop()
        #expect(exit.isClean, "\(exit)")
        #expect(joined.status == 0, "\(joined)")
        let lines = joined.stdoutLines.filter { $0.hasPrefix("alice: ") }
        #expect(lines.joined(separator: " ").contains("leisure"), "alice's captions, named: \(joined)")
        #expect(joined.stderr.contains("audiograph: joined http://127.0.0.1:\(server.port)/v1/sessions/standup as alice"), "\(joined)")
        #expect(joined.stderr.contains("sent 7.1 s of audio"), "\(joined)")

        let store = try SQLiteTranscriptStore(readingFrom: fixture.storePath)
        defer { store.close() }
        let tid = try #require(try store.transcripts(sessionID: "standup", after: nil, limit: 100)
            .compactMap { $0[StoreColumn.tid]?.description }.first { !$0.hasPrefix("standup-") })
        let stored = try #require(try store.transcript(tid: tid)?.utterances)
        #expect(Set(stored.compactMap(\.speaker)) == ["alice"], "\(stored)")
        #expect(stored.map(\.text).joined(separator: " ").contains("leisure"), "\(stored)")
    }

    @Test func argumentErrorsExit64() async throws {
        let dir = try TemporaryFolder()
        let url = "http://127.0.0.1:9/v1/sessions/standup"
        let cases: [([String], String?)] = [
            (["join"], "URL"),
            (["join", "https://example.com/v1/sessions/x", "--speaker", "a", "--token", "t", Self.speech], "URL"),
            (["join", "http://127.0.0.1:8080/v1/transcripts", "--speaker", "a", "--token", "t", Self.speech], "URL"),
            (["join", "http://127.0.0.1:8080/v1/sessions/x?token=t", "--speaker", "a", Self.speech], "URL"),
            (["join", url, "--token", "t", Self.speech], "--speaker"),
            (["join", url, "--speaker", "a", "--token", "t"], "FILE"),
            (["join", url, "--speaker", "a", "--token", "t", "--mic", Self.speech], "--mic"),
            (["join", url, "--speaker", "a", "--token", "t", "--rate", "0", Self.speech], "--rate"),
            (["join", url, "--speaker", "a", "--token", "t", "--linger", "x", Self.speech], "--linger"),
            (["join", url, "--speaker", "a", Self.speech], "--token"),
            (["join", url, "--speaker", "a\u{1B}[2J", "--token", "t", Self.speech], "--speaker"),
        ]
        for (arguments, location) in cases {
            let environment = ProcessInfo.processInfo.environment.filter { $0.key != "AUDIOGRAPH_TOKEN" }
            let result = try await Harness.run(try Harness.binary(), arguments, in: dir, environment: environment)
            expectError(result, exit: 64, at: location)
            #expect(!result.stderr.contains("\u{1B}"), "no control character reaches the terminal: \(result)")
        }
    }

    @Test func fileErrors() async throws {
        let dir = try TemporaryFolder()
        let url = "http://127.0.0.1:9/v1/sessions/standup"
        let missing = try await Harness.audiograph(["join", url, "--speaker", "a", "--token", "t", "missing.wav"], in: dir)
        expectError(missing, exit: 66, at: "missing.wav")
        try dir.write("notes.wav", "not audio at all")
        let notAudio = try await Harness.audiograph(["join", url, "--speaker", "a", "--token", "t", "notes.wav"], in: dir)
        expectError(notAudio, exit: 65, at: "notes.wav")
    }

    @Test func nothingListeningExits69() async throws {
        let dir = try TemporaryFolder()
        // A port bound and never listened on: connecting is refused, and no other test can take it meanwhile.
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let port = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { raw -> UInt16 in
                _ = bind(fd, raw, length)
                _ = getsockname(fd, raw, &length)
                return UInt16(bigEndian: pointer.pointee.sin_port)
            }
        }
        let url = "http://127.0.0.1:\(port)/v1/sessions/standup"
        let result = try await Harness.audiograph(["join", url, "--speaker", "alice", "--token", "t", Self.speech], in: dir)
        expectError(result, exit: 69, at: url)
        #expect(result.stderr.contains("cannot connect to 127.0.0.1:\(port)"), "\(result)")
    }

    @Test func refusalsBeforeTheUpgradeAndTheServerClosing() async throws {
        let dir = try TemporaryFolder()
        let (server, fixture) = try await Self.startCall(in: dir, ingestRate: "1")
        let url = server.url("/v1/sessions/standup")
        do {
            // 401: a token the server does not know.
            let bad = try await Harness.audiograph(["join", url, "--speaker", "alice", "--token", "agt_nope", Self.speech], in: dir)
            expectError(bad, exit: 77, at: url)
            #expect(bad.stderr.contains("401 invalid_token"), "\(bad)")
            // 404: no such call, and a call alice may not send into as bob.
            let none = try await Harness.audiograph(["join", server.url("/v1/sessions/nope"), "--speaker", "alice",
                                                     "--token", fixture.aliceToken, Self.speech], in: dir)
            expectError(none, exit: 69, at: server.url("/v1/sessions/nope"))
            #expect(none.stderr.contains("404 not_found"), "\(none)")
            let asBob = try await Harness.audiograph(["join", url, "--speaker", "bob", "--token", fixture.aliceToken, Self.speech],
                                                     in: dir)
            expectError(asBob, exit: 69, at: url)
            // 409: alice streams already (a join at 1x, open until the server stops).
            let first = try await Self.startJoin([url, "--speaker", "alice", "--token", fixture.aliceToken, "--no-captions", Self.call],
                                                 in: dir)
            let second = try await Harness.audiograph(["join", url, "--speaker", "alice", "--token", fixture.aliceToken, Self.speech],
                                                      in: dir)
            expectError(second, exit: 69, at: url)
            #expect(second.stderr.contains("409 already_streaming"), "\(second)")
            // The server stopping closes the first with 1001 and its reason: exit 74.
            let exit = try await server.stop()
            #expect(exit.isClean, "\(exit)")
            let status = try await first.exit.value
            let stderr = String(decoding: await first.stderr.all(), as: UTF8.self)
            #expect(status.status == 74 && !status.signalled, "exit \(status.status): \(stderr)")
            #expect(stderr.contains("audiograph: \(url): the server closed the connection with 1001"), "\(stderr)")
        } catch {
            _ = try? await server.stop()
            throw error
        }
    }

    /// Item 8: a client that vanishes without a close frame (SIGKILL mid-sentence): its branch ends at once
    /// (the socket's end, well within the idle timeout) and its last sentence is finalized, shown and stored.
    @Test func aVanishedClientsLastSentenceIsStored() async throws {
        let dir = try TemporaryFolder()
        let (server, fixture) = try await Self.startCall(in: dir, ingestRate: "1", partials: true)
        let finalText: String
        let seconds: Double
        do {
            let viewer = try await ServeEventStream(port: server.port, path: "/v1/sessions/standup/captions", token: fixture.bobToken)
            defer { viewer.disconnect() }
            _ = await viewer.head()
            let join = try await Self.startJoin([server.url("/v1/sessions/standup"), "--speaker", "alice",
                                                 "--token", fixture.aliceToken, "--no-captions", Self.speech], in: dir)
            // Mid-sentence: alice's first partial is on screen, no final yet.
            let speaking = await viewer.waitForEvents { events in
                events.compactMap(\.object).contains { $0["type"] as? String == "partial" && $0["speaker"] as? String == "alice" }
            }
            #expect(speaking, "a partial of alice: \(viewer.events)")
            let before = viewer.events.compactMap(\.object).filter { $0["type"] as? String == "final" }.count
            #expect(before == 0, "\(viewer.events)")
            join.process.signal(SIGKILL)
            let killed = Date()
            _ = try await join.exit.value
            let finalized = await viewer.waitForEvents(timeout: 30) { events in
                events.compactMap(\.object).contains { $0["type"] as? String == "final" && $0["speaker"] as? String == "alice" }
            }
            seconds = Date().timeIntervalSince(killed)
            #expect(finalized, "alice's last sentence is finalized: \(viewer.events)")
            finalText = viewer.events.compactMap(\.object).first { $0["type"] as? String == "final" }?["text"] as? String ?? ""
        } catch {
            _ = try? await server.stop()
            throw error
        }
        // Within the WebSocket idle timeout (30 s): the end of the socket ends the branch, not the timeout.
        #expect(seconds < 30, "final \(seconds) s after the kill")
        print("join: SIGKILL mid-sentence -> alice's final \(String(format: "%.2f", seconds)) s later: \(finalText)")
        let exit = try await server.stop()
        #expect(exit.isClean, "\(exit)")
        let store = try SQLiteTranscriptStore(readingFrom: fixture.storePath)
        defer { store.close() }
        let tid = try #require(try store.transcripts(sessionID: "standup", after: nil, limit: 100)
            .compactMap { $0[StoreColumn.tid]?.description }.first { !$0.hasPrefix("standup-") })
        let stored = try #require(try store.transcript(tid: tid)?.utterances)
        #expect(stored.contains { $0.speaker == "alice" && $0.text == finalText && !finalText.isEmpty }, "\(stored)")
    }

    /// Ctrl-C while a file is sent: the close goes out (the server finalizes the sentence under way), and the
    /// run exits 130 as an interrupted `audiograph run` does.
    @Test func interruptedWhileSendingAFileExits130() async throws {
        let dir = try TemporaryFolder()
        let (server, fixture) = try await Self.startCall(in: dir, ingestRate: "1")
        do {
            let join = try await Self.startJoin([server.url("/v1/sessions/standup"), "--speaker", "bob", "--token", fixture.bobToken,
                                                 "--linger", "0", Self.call], in: dir)
            join.process.signal(SIGINT)
            let status = try await join.exit.value
            let stderr = String(decoding: await join.stderr.all(), as: UTF8.self)
            #expect(status.status == 130 && !status.signalled, "exit \(status.status): \(stderr)")
            #expect(stderr.contains("audiograph: stopping: leaving the call") && stderr.contains("audiograph: left the call: sent "),
                    "\(stderr)")
        } catch {
            _ = try? await server.stop()
            throw error
        }
        let exit = try await server.stop()
        #expect(exit.isClean, "\(exit)")
    }

    @Test func noSoundServerForTheMicrophoneExits69() async throws {
        let dir = try TemporaryFolder()
        var environment = ProcessInfo.processInfo.environment
        environment["PULSE_SERVER"] = "unix:\(dir.path)/no-such-socket"
        let result = try await Harness.run(try Harness.binary(), ["join", "http://127.0.0.1:9/v1/sessions/standup", "--speaker", "alice",
                                                                  "--token", "t", "--mic"], in: dir, environment: environment)
        expectError(result, exit: 69, at: "microphone")
    }

    /// With a sound server (scripts/test.sh starts one with a null sink; CI requires it): the microphone goes
    /// into the call until Ctrl-C, which leaves the call normally (exit 0).
    @Test(.enabled(if: JoinCommandTests.soundServer)) func theMicrophoneUntilInterrupted() async throws {
        let dir = try TemporaryFolder()
        let (server, fixture) = try await Self.startCall(in: dir, ingestRate: "1")
        do {
            let join = try await Self.startJoin([server.url("/v1/sessions/standup"), "--speaker", "bob", "--token", fixture.bobToken,
                                                 "--mic"], in: dir)
            join.process.signal(SIGINT)
            let status = try await join.exit.value
            let stderr = String(decoding: await join.stderr.all(), as: UTF8.self)
            #expect(status.status == 0 && !status.signalled, "exit \(status.status): \(stderr)")
            #expect(stderr.contains("audiograph: left the call: sent "), "\(stderr)")
        } catch {
            _ = try? await server.stop()
            throw error
        }
        let exit = try await server.stop()
        #expect(exit.isClean, "\(exit)")
    }

    /// Whether a PulseAudio/PipeWire server answers (`pactl info`), or the run requires one
    /// (AUDIOGRAPH_REQUIRE_SOUND_SERVER=1, as scripts/test.sh sets it).
    static let soundServer: Bool = {
        if ProcessInfo.processInfo.environment["AUDIOGRAPH_REQUIRE_SOUND_SERVER"] == "1" { return true }
        let process = ChildProcess()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["pactl", "info"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }()
}
