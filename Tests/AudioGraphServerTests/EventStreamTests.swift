import AudioGraph
import Testing

@Suite struct EventStreamTests {
    @Test func eventsAreFramedAsServerSentEvents() {
        let stream = EventStream()
        stream.send(event: "caption", id: 4, data: "{\"a\":1}")
        stream.send(event: "note", data: "two\nlines")
        #expect(stream.drain() == "event: caption\nid: 4\ndata: {\"a\":1}\n\nevent: note\ndata: two\ndata: lines\n\n")
        #expect(stream.drain() == "")
    }

    @Test func closeStopsFurtherWrites() {
        let stream = EventStream()
        stream.send("a\n\n")
        stream.close()
        stream.send("b\n\n")
        #expect(stream.isClosed)
        #expect(stream.drain() == "a\n\n")
    }

    @Test func aReaderThatFallsTooFarBehindIsCutOff() {
        let stream = EventStream()
        let chunk = String(repeating: "x", count: 64 * 1024)
        for _ in 0..<(EventStream.maximumPending / chunk.utf8.count + 1) { stream.send(chunk) }
        #expect(stream.isClosed)
    }
}
