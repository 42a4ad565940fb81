#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// glibc declares these only under _XOPEN_SOURCE, which the Glibc module is not built with.
@_silgen_name("posix_openpt") private func posixOpenpt(_ flags: Int32) -> Int32
@_silgen_name("grantpt") private func grantpt(_ descriptor: Int32) -> Int32
@_silgen_name("unlockpt") private func unlockpt(_ descriptor: Int32) -> Int32
@_silgen_name("ptsname") private func ptsname(_ descriptor: Int32) -> UnsafeMutablePointer<CChar>?

/// A pseudo-terminal opened in a test: the program under test writes to its slave side (and reads keys typed
/// on the master side); `drain()` returns what arrived on the master side, for a `ScreenModel`.
public final class PseudoTerminal: Sendable {
    public let master: Int32
    public let slave: Int32

    public init?(columns: Int, rows: Int) {
        master = posixOpenpt(O_RDWR | O_NOCTTY)
        guard master >= 0, grantpt(master) == 0, unlockpt(master) == 0, let name = ptsname(master) else { return nil }
        slave = open(name, O_RDWR | O_NOCTTY)
        guard slave >= 0 else { return nil }
        var size = winsize(ws_row: UInt16(rows), ws_col: UInt16(columns), ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(slave, UInt(TIOCSWINSZ), &size)
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
    }

    /// Everything written to the slave since the last call (writes to a pty are in its buffer once `write`
    /// returns).
    public func drain() -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(master, $0.baseAddress!, $0.count) }
            if count <= 0 { return out }
            out += chunk[0..<count]
        }
    }

    /// Types `text` on the terminal (the program reads it from the slave side).
    public func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress!, $0.count) }
    }

    deinit {
        close(slave)
        close(master)
    }
}

/// A small model of a terminal screen: printable characters (wrapping at the last column), `\r`, `\n`
/// (scrolling at the bottom), `ESC [ A` (cursor up), `ESC [ 2K` (erase the line). Any other escape sequence
/// or control character is recorded in `unknown`, so a test sees raw control bytes reaching the terminal.
public struct ScreenModel {
    public let columns: Int
    public let rows: Int
    public private(set) var lines: [[Character]]
    public private(set) var row = 0
    public private(set) var column = 0
    public private(set) var unknown: [String] = []

    public init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        lines = Array(repeating: [], count: rows)
    }

    /// The rows as text, trailing blanks cut, trailing empty rows dropped.
    public var text: [String] {
        var out = lines.map { String($0).replacingOccurrences(of: "\u{0}", with: " ") }
            .map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
        while out.last?.isEmpty == true { out.removeLast() }
        return out
    }

    public mutating func feed(_ bytes: [UInt8]) {
        let scalars = Array(String(decoding: bytes, as: UTF8.self).unicodeScalars)
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            index += 1
            switch scalar {
            case "\r": column = 0
            case "\n": lineFeed()
            case "\u{1B}":
                var sequence = ""
                if index < scalars.count, scalars[index] == "[" {
                    index += 1
                    while index < scalars.count, !(0x40...0x7E).contains(scalars[index].value) {
                        sequence.unicodeScalars.append(scalars[index])
                        index += 1
                    }
                    if index < scalars.count { sequence.unicodeScalars.append(scalars[index]); index += 1 }
                }
                switch sequence {
                case "A", "1A": row = max(row - 1, 0)
                case "2K": lines[row] = []
                default: unknown.append("ESC " + sequence)
                }
            case _ where scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value):
                unknown.append("\\x" + String(scalar.value, radix: 16))
            default:
                if column >= columns {
                    column = 0
                    lineFeed()
                }
                while lines[row].count < column { lines[row].append(" ") }
                let character = Character(scalar)
                if column < lines[row].count { lines[row][column] = character } else { lines[row].append(character) }
                column += 1
            }
        }
    }

    private mutating func lineFeed() {
        if row == rows - 1 {
            lines.removeFirst()
            lines.append([])
        } else {
            row += 1
        }
    }
}
