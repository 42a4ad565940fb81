import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Testing
@testable import AudioGraphIO
#if canImport(Glibc)
import Glibc
#endif

// Every way `rtp-source` refuses to start, each with the node's id, the `sdp` parameter's path and the exit code
// the CLI turns it into.

@Suite(.ownThreads) struct RTPSourceErrorTests {
    /// The error of making and starting an `rtp-source` reading `sdp`.
    func startError(sdp: String) -> GraphError? {
        graphError {
            let source = try NodeHarness(type: RTPSourceNode.self, id: "call",
                                         parameters: RTPTestSupport.parameters(sdp: sdp), input: nil)
            source.stop()
        }
    }

    /// The error for an SDP file holding `text`.
    func startError(text: String) throws -> GraphError? {
        try withTemporaryFolder(prefix: "RTPSourceErrorTests") { dir in
            try text.write(toFile: dir + "/in.sdp", atomically: true, encoding: .utf8)
            return startError(sdp: dir + "/in.sdp")
        }
    }

    @Test("a missing SDP file: exit 66, naming the node's sdp parameter and the path")
    func missingFile() throws {
        let error = try #require(startError(sdp: "/nonexistent/phone.sdp"))
        #expect(error.code == .missingInput && error.code.exitCode == 66)
        #expect(error.location == "nodes.call.sdp" && error.nodeID == "call")
        #expect(error.message == "no such file: /nonexistent/phone.sdp")
    }

    @Test("a folder instead of an SDP file: exit 66")
    func folder() throws {
        try withTemporaryFolder(prefix: "RTPSourceErrorTests") { dir in
            let error = try #require(startError(sdp: dir))
            #expect(error.code == .missingInput && error.location == "nodes.call.sdp")
            #expect(error.message.contains("is a folder, not a regular file"), "\(error)")
        }
    }

    @Test("text that is not SDP: exit 65, saying what is wrong", arguments: [
        ("hello world\n", "\"hello world\" is not an SDP line (type=value)"),
        ("s=x\nc=IN IP4 127.0.0.1\nm=audio 5004 RTP/AVP 0\n", "no \"v=0\" line: this is not an SDP file"),
        ("v=0\nc=IN IP4 127.0.0.1\nm=video 5004 RTP/AVP 96\n", "no audio (\"m=audio <port> RTP/AVP <payload types>\" line)"),
        ("v=0\nm=audio 5004 RTP/AVP 0\n", "no connection address (\"c=IN IP4 <address>\" line)"),
        ("v=0\nc=IN IP4 127.0.0.1\nm=audio 99999 RTP/AVP 0\n", "\"m=audio 99999 RTP/AVP 0\" needs a port (1-65534: RTCP takes the next one), a protocol and payload types"),
        ("v=0\nc=IN IP4 127.0.0.1\nm=audio 5004 udp 0\n", "\"m=audio 5004 udp 0\" is not RTP (protocol udp)"),
        ("v=0\nc=IN IP4 127.0.0.1\nm=audio 5004 RTP/AVP opus\n",
         "\"m=audio 5004 RTP/AVP opus\" has a payload type that is not a number from 0 to 127"),
        ("v=0\nc=IN IP4\nm=audio 5004 RTP/AVP 0\n", "\"c=IN IP4\" needs a network, type and address"),
        ("v=0\nc=IN IP4 127.0.0.1\nm=audio 65535 RTP/AVP 0\n", "\"m=audio 65535 RTP/AVP 0\" needs a port (1-65534: RTCP takes the next one), a protocol and payload types"),
        ("v=0\nc=IN IP4 127.0.0.1\nm=audio 5004 RTP/AVP 97\na=rtpmap:97 opus\n", "\"a=rtpmap:97 opus\" should read rtpmap:<payload> <codec>/<rate>[/<channels>]"),
    ])
    func malformed(text: String, reason: String) throws {
        let error = try #require(try startError(text: text))
        #expect(error.code == .invalidConfig && error.code.exitCode == 65)
        #expect(error.location == "nodes.call.sdp" && error.nodeID == "call")
        #expect(error.message.hasSuffix("is not an SDP file rtp-source can use: " + reason), "\(error)")
    }

    @Test("a codec it does not decode: exit 65, listing what it decodes and what the SDP offers")
    func unsupportedCodec() throws {
        let error = try #require(try startError(text: """
            v=0
            c=IN IP4 127.0.0.1
            m=audio 5004 RTP/AVP 9 96 98
            a=rtpmap:96 speex/16000
            """))
        #expect(error.code == .invalidConfig)
        #expect(error.message.hasSuffix("no codec rtp-source decodes (it decodes Opus, PCMU, PCMA, L16; the SDP "
            + "offers payload 9, speex, payload 98 without an a=rtpmap line)"), "\(error)")
    }

    @Test("an address FFmpeg cannot use: exit 65 with FFmpeg's reason")
    func badAddress() throws {
        let error = try #require(try startError(text: RTPTestSupport.Codec.pcmu.sdp(port: UDPPorts.freePair())
            .replacingOccurrences(of: "c=IN IP4 127.0.0.1", with: "c=IN IP4 no-such-host.invalid")))
        #expect(error.code == .invalidConfig && error.location == "nodes.call.sdp")
        #expect(error.message.contains("FFmpeg cannot open the RTP session of"), "\(error)")
        #expect(error.message.contains("(PCMU 8000 Hz 1 ch, payload 0, UDP port"), "\(error)")
    }

    @Test("the RTP port or the RTCP port after it in use: exit 69, naming the port", arguments: [0, 1])
    func portInUse(offset: Int) throws {
        let port = UDPPorts.freePair()
        let taken = try #require(UDPPorts.bind(port + offset))
        defer { close(taken.socket) }
        let error = try #require(try startError(text: RTPTestSupport.Codec.opus.sdp(port: port)))
        #expect(error.code == .unavailable && error.code.exitCode == 69)
        #expect(error.location == "nodes.call.sdp" && error.nodeID == "call")
        #expect(error.message.hasPrefix("cannot receive RTP on UDP port \(port + offset): the port is in use"), "\(error)")
    }
}
