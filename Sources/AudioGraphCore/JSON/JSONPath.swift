/// A location inside a JSON document, printed as `nodes.rs.sampleRate` or `links[2]`.
public struct JSONPath: Sendable, Hashable, CustomStringConvertible {
    public enum Component: Sendable, Hashable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    public static let root = JSONPath()

    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    public func appending(index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }
    public static func / (lhs: JSONPath, rhs: String) -> JSONPath { lhs.appending(rhs) }

    public var description: String {
        var out = ""
        for component in components {
            switch component {
            case .key(let key):
                let plain = !key.isEmpty && key.unicodeScalars.allSatisfy {
                    ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_"
                }
                if plain {
                    out += out.isEmpty ? key : "." + key
                } else {
                    var quoted = ""
                    JSONWriter.writeString(key, into: &quoted)
                    out += "[\(quoted)]"
                }
            case .index(let i): out += "[\(i)]"
            }
        }
        return out.isEmpty ? "(top level)" : out
    }
}
