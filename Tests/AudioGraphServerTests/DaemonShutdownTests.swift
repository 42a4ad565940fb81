/// `HTTPDaemon.shutdown()` quiesces libmicrohttpd and then stops it. It used to close the quiesced listening socket
/// at once, while libmicrohttpd's worker threads were still to take it out of their epoll sets: a thread that
/// found it closed aborted the process ("Fatal error in GNU libmicrohttpd daemon.c: Failed to remove listen FD
/// from epoll set"), seen once as `audiograph run` with a `serve` block exiting on SIGABRT after Ctrl-C.
@testable import AudioGraphServer
import AudioGraphCore
import AudioGraphTestKit
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct DaemonShutdownTests {
    /// Daemons with several worker threads started and shut down over and over, each after a connection and a
    /// request (so the threads are awake in their epoll loops). With the old order this process aborted.
    @Test func repeatedShutdownsOfABusyDaemonNeverAbort() throws {
        for _ in 0..<150 {
            let daemon = try HTTPDaemon(address: try #require(ListenAddress("127.0.0.1:0")), threads: 4) { _ in
                HTTPResponse(status: 204)
            }
            #expect(Self.request(port: daemon.port) == true)
            daemon.shutdown(timeout: 1)
        }
    }

    /// While a request is still being answered, `shutdown()` waits for it, and a request that comes meanwhile is
    /// answered 503 with `Connection: close`; the slow one still gets its answer.
    @Test func requestsDuringShutdownAreAnswered503() throws {
        let release = DispatchSemaphore(value: 0)
        let entered = DispatchSemaphore(value: 0)
        let daemon = try HTTPDaemon(address: try #require(ListenAddress("127.0.0.1:0")), threads: 4) { request in
            if request.path == "/slow" {
                entered.signal()
                release.wait()  // an MHD worker thread, not the test's
            }
            return HTTPResponse(status: 200)
        }
        let port = daemon.port
        let slowAnswer = Mutex<String?>(nil)
        let slowDone = DispatchSemaphore(value: 0)
        Thread {
            slowAnswer.withLock { $0 = Self.exchange(port: port, path: "/slow") }
            slowDone.signal()
        }.start()
        #expect(entered.wait(timeout: .now() + 30) == .success)
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            daemon.shutdown(timeout: 30)
            stopped.signal()
        }.start()
        // Until the shutdown has begun, requests are answered as usual; from then on, 503.
        var refused: String?
        _ = blockingEventually(timeout: 30, every: 0.001) {
            if let answer = Self.exchange(port: port, path: "/fast"), answer.hasPrefix("HTTP/1.1 503") { refused = answer }
            return refused != nil
        }
        let answer = try #require(refused, "no request was refused while the daemon stopped")
        #expect(answer.lowercased().contains("connection: close"))
        release.signal()
        #expect(slowDone.wait(timeout: .now() + 30) == .success)
        #expect(slowAnswer.withLock { $0 }?.hasPrefix("HTTP/1.1 200") == true)
        #expect(stopped.wait(timeout: .now() + 30) == .success)
    }

    /// Sends one `GET /` and reads until the server closes or answers; true once an answer began.
    private static func request(port: UInt16) -> Bool {
        exchange(port: port, path: "/") != nil
    }

    /// Sends `GET path` and returns what came back before the server closed (nil: no connection or no answer).
    private static func exchange(port: UInt16, path: String) -> String? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return nil }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)
        guard send(socket, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else { return nil }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = recv(socket, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return received.isEmpty ? nil : String(decoding: received, as: UTF8.self)
    }
}
