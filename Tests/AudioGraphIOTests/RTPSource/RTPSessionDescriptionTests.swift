import Testing
@testable import AudioGraphIO

// The SDP reading of `rtp-source` alone, and the timeline that turns lost packets into silence.

@Suite struct RTPSessionDescriptionTests {
    @Test("what ffmpeg -sdp_file writes for Opus")
    func ffmpegOpus() throws {
        let session = try RTPSessionDescription(parsing: """
            v=0\r
            o=- 0 0 IN IP4 127.0.0.1\r
            s=No Name\r
            c=IN IP4 127.0.0.1\r
            t=0 0\r
            a=tool:libavformat LIBAVFORMAT_VERSION\r
            m=audio 40000 RTP/AVP 97\r
            b=AS:96\r
            a=rtpmap:97 opus/48000/2\r
            a=fmtp:97 sprop-stereo=1\r
            """)
        #expect(session == RTPSessionDescription(port: 40000, address: "127.0.0.1", payloadType: 97, codec: .opus,
                                                 clockRate: 48000, channels: 2))
    }

    @Test("static payload types need no rtpmap; the first decodable one is used")
    func staticTypes() throws {
        let pcma = try RTPSessionDescription(parsing: "v=0\nc=IN IP4 10.0.0.5\nm=audio 4000 RTP/AVP 9 8 0\n")
        #expect(pcma == RTPSessionDescription(port: 4000, address: "10.0.0.5", payloadType: 8, codec: .pcma,
                                              clockRate: 8000, channels: 1))
    }

    @Test("only the audio section counts: a video section's address and rtpmaps are ignored")
    func audioSectionOnly() throws {
        let session = try RTPSessionDescription(parsing: """
            v=0
            c=IN IP4 192.0.2.1
            m=video 5006 RTP/AVP 96
            c=IN IP4 192.0.2.9
            a=rtpmap:96 VP8/90000
            m=audio 5004 RTP/AVP 96
            c=IN IP4 192.0.2.2
            a=rtpmap:96 L16/16000
            m=video 5008 RTP/AVP 97
            c=IN IP4 192.0.2.3
            a=rtpmap:96 opus/48000/2
            """)
        #expect(session == RTPSessionDescription(port: 5004, address: "192.0.2.2", payloadType: 96, codec: .l16,
                                                 clockRate: 16000, channels: 1))
    }
}

@Suite struct RTPTimelineTests {
    @Test("a hole between frames is filled with its length; jitter and the first frame are not")
    func holes() {
        var timeline = RTPTimeline(tolerance: 0.005, maximumGap: 10)
        #expect(timeline.place(start: 7, duration: 0.02) == 0)
        #expect(timeline.place(start: 7.02, duration: 0.02) == 0)
        #expect(timeline.place(start: 7.043, duration: 0.02) == 0)
        #expect(abs(timeline.place(start: 7.123, duration: 0.02) - 0.06) < 1e-9)
        #expect(timeline.place(start: nil, duration: 0.02) == 0)
        #expect(abs(timeline.place(start: 7.5, duration: 0.02) - 0.337) < 1e-9)
        #expect(timeline.concealedGaps == 2 && abs(timeline.concealedSeconds - 0.397) < 1e-9)
        #expect(timeline.discontinuities == 0)
    }

    @Test("a jump past maximumGap or backwards is a restarted sender: a new timeline, nothing inserted")
    func discontinuities() {
        var timeline = RTPTimeline(tolerance: 0.005, maximumGap: 10)
        #expect(timeline.place(start: 0, duration: 0.02) == 0)
        #expect(timeline.place(start: 83_000, duration: 0.02) == 0)
        #expect(timeline.place(start: 83_000.02, duration: 0.02) == 0)
        #expect(timeline.place(start: 12, duration: 0.02) == 0)
        #expect(abs(timeline.place(start: 22.02, duration: 0.02) - 10) < 1e-9)
        #expect(timeline.discontinuities == 2 && timeline.concealedGaps == 1)
        #expect(timeline.expectedStart == 22.04)
    }
}
