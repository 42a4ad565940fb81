import AudioGraphCore
import AudioGraphTestKit
import CPulseAudio
import Foundation
import Testing
@testable import AudioGraphIO

// `mic-source` failing to open: no server ("microphone unavailable"), a server that refuses us ("microphone
// permission denied"), a device that does not exist — each a distinct kind and message, all exit 69.

@Suite(.serialized, .ownThreads) struct MicrophoneErrorTests {
    /// A unix socket path nothing listens on.
    static func deadServer() -> String {
        "unix:" + FileManager.default.temporaryDirectory.appendingPathComponent("agmic-none-\(UUID().uuidString)/native").path
    }

    /// The `GraphError` running `graph` throws, or nil.
    static func runError(_ graph: Graph) -> GraphError? {
        do {
            _ = try GraphRuntime(graph: graph).run()
            return nil
        } catch {
            return error
        }
    }

    @Test func noServerIsMicrophoneUnavailable() {
        let server = Self.deadServer()
        #expect {
            try MicrophoneAccess.check(server: server)
        } throws: { error in
            guard let error = error as? MicrophoneError else { return false }
            return error.kind == .unavailable && error.message.hasPrefix("microphone unavailable")
                && error.message.contains(server) && error.message.contains("Connection refused")
                && error.pulseError == Int32(PA_ERR_CONNECTIONREFUSED.rawValue)
        }
    }

    @Test func noServerFailsTheRunWithExit69AtTheServerParameter() throws {
        let server = Self.deadServer()
        let graph = try buildMicrophoneGraph(
            "\"mic\": {\"type\": \"mic-source\", \"server\": \"\(server)\"}, \"rec\": {\"type\": \"test-recorder\"}",
            links: "\"mic -> rec\"")
        let error = try #require(Self.runError(graph))
        #expect(error.code == .unavailable)
        #expect(error.code.exitCode == 69)
        #expect(error.location == "nodes.mic.server")
        #expect(error.nodeID == "mic")
        #expect(error.message.hasPrefix("microphone unavailable: no sound server"))
        #expect(error.microphoneErrorKind == .unavailable)
        // The sink was started first and is still stopped after the failed start.
        let recorder = graph.node("rec")!.instance as! RecordingSinkNode
        #expect(recorder.stopped)
    }

    @Test func anInvalidServerAddressIsUnavailableToo() {
        #expect {
            try MicrophoneAccess.check(server: "nonsense::address::")
        } throws: { error in
            (error as? MicrophoneError)?.kind == .unavailable
        }
    }

    @Test func aRefusingServerIsPermissionDenied() throws {
        let refusing = try RefusingSoundServer()
        defer { refusing.stop() }
        // The server is up and lets in a client with its cookie ...
        #expect(try refusing.acceptsRightCookie())
        // ... and refuses ours.
        var caught: MicrophoneError?
        do {
            try MicrophoneAccess.check(server: refusing.address)
        } catch {
            caught = error
        }
        let error = try #require(caught)
        #expect(error.kind == .permissionDenied)
        #expect(error.pulseError == Int32(PA_ERR_ACCESS.rawValue))
        #expect(error.message.hasPrefix("microphone permission denied"))
        #expect(error.message.contains(refusing.address))

        // Through a graph: exit 69 like "unavailable", but told apart by kind and message.
        let graph = try buildMicrophoneGraph(
            "\"mic\": {\"type\": \"mic-source\", \"server\": \"\(refusing.address)\"}, \"rec\": {\"type\": \"test-recorder\"}",
            links: "\"mic -> rec\"")
        let graphError = try #require(Self.runError(graph))
        #expect(graphError.code == .unavailable)
        #expect(graphError.code.exitCode == 69)
        #expect(graphError.location == "nodes.mic.server")
        #expect(graphError.microphoneErrorKind == .permissionDenied)
        #expect(graphError.message.hasPrefix("microphone permission denied: "))
        #expect(!graphError.message.hasPrefix("microphone unavailable"))
    }

    @Test(.enabled(if: SoundServer.enabled, SoundServer.skipReason))
    func aMissingDeviceIsUnavailableNamingTheDevice() throws {
        #expect {
            try MicrophoneAccess.check(device: "agmic_no_such_source")
        } throws: { error in
            guard let error = error as? MicrophoneError else { return false }
            return error.kind == .deviceNotFound && error.message.hasPrefix("microphone unavailable")
                && error.message.contains("\"agmic_no_such_source\"")
        }
        let graph = try buildMicrophoneGraph(
            "\"mic\": {\"type\": \"mic-source\", \"device\": \"agmic_no_such_source\"}, \"rec\": {\"type\": \"test-recorder\"}",
            links: "\"mic -> rec\"")
        let error = try #require(Self.runError(graph))
        #expect(error.code == .unavailable)
        #expect(error.location == "nodes.mic.device")
        #expect(error.microphoneErrorKind == .unavailable)
    }

    @Test(.enabled(if: SoundServer.enabled, SoundServer.skipReason))
    func theDefaultServerAndSourceOpen() throws {
        try MicrophoneAccess.check()
        try MicrophoneAccess.check(sampleRate: 48000, channels: 2)
    }

    @Test func buildingAGraphNeedsNoServer() throws {
        // Opening happens in `start`: validate/inspect work on a machine without sound.
        let graph = try buildMicrophoneGraph(
            "\"mic\": {\"type\": \"mic-source\", \"server\": \"\(Self.deadServer())\", \"sampleRate\": 48000, \"channels\": 2}, "
                + "\"rec\": {\"type\": \"test-recorder\"}",
            links: "\"mic -> rec\"")
        let mic = try #require(graph.node("mic")?.instance as? MicSourceNode)
        #expect(mic.isLive)
        #expect(mic.totalFrames == nil)
        #expect(graph.node("mic")?.outputFormat == AudioFormat(sampleRate: 48000, channels: 2))
        #expect(mic.blockFrames == 960)   // 20 ms
        mic.stop()
        mic.stop()   // idempotent, and fine before start
    }

    @Test func parametersAreValidated() {
        for (nodes, location) in [
            ("\"mic\": {\"type\": \"mic-source\", \"sampleRate\": 4000}", "nodes.mic.sampleRate"),
            ("\"mic\": {\"type\": \"mic-source\", \"channels\": 9}", "nodes.mic.channels"),
            ("\"mic\": {\"type\": \"mic-source\", \"blockMs\": 5}", "nodes.mic.blockMs"),
            ("\"mic\": {\"type\": \"mic-source\", \"device\": \"\"}", "nodes.mic.device"),
        ] {
            #expect {
                _ = try buildMicrophoneGraph(nodes + ", \"rec\": {\"type\": \"test-recorder\"}", links: "\"mic -> rec\"")
            } throws: { error in
                guard let error = error as? GraphError else { return false }
                return error.code == .invalidConfig && error.location == location
            }
        }
    }
}
