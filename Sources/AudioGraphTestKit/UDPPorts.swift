import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// UDP ports for tests of network sources (`rtp-source`): free ones to listen on, and whether one is taken.
public enum UDPPorts {
    /// A UDP socket bound to `port` on `address` (host byte order; default every address; port 0: any free
    /// port), and the port it got; nil if the port is taken. Close the socket when done.
    public static func bind(_ port: Int, address: UInt32 = INADDR_ANY) -> (socket: Int32, port: Int)? {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        guard socket >= 0 else { return nil }
        var sockaddress = sockaddr_in()
        sockaddress.sin_family = sa_family_t(AF_INET)
        sockaddress.sin_port = in_port_t(UInt16(port).bigEndian)
        sockaddress.sin_addr.s_addr = address.bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &sockaddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket, $0, length) == 0 && getsockname(socket, $0, &length) == 0
            }
        }
        guard bound else {
            close(socket)
            return nil
        }
        return (socket, Int(UInt16(bigEndian: sockaddress.sin_port)))
    }

    /// Whether something (another program, or a node of this process) has UDP port `port` bound.
    public static func isInUse(_ port: Int) -> Bool {
        guard let probe = bind(port) else { return true }
        close(probe.socket)
        return false
    }

    /// An even UDP port whose next port is free too (RTP and RTCP), free when this returns. Another test may
    /// take it before it is bound again; the kernel hands out port-0 ports in rotation, so that is rare.
    public static func freePair() -> Int {
        while true {
            guard let first = bind(0) else { continue }
            close(first.socket)
            let port = first.port & ~1
            guard port >= 1024, !isInUse(port), !isInUse(port + 1) else { continue }
            return port
        }
    }
}
