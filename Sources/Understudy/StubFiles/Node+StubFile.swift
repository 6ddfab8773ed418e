import Foundation
internal import Yams

/// The shape of a composed YAML (or JSON) node: what stub files read by YAML's tags
/// (``Yams/Node/kind``) and WireMock mappings by JSON's rules (``WireMockJSON/kind(of:)``).
enum NodeKind {
    case mapping, list, null, bool, int, float, string
}

extension Node {
    /// The node's kind by its resolved tag; tags the schema has no use for (timestamps,
    /// `!!binary`, ...) read as strings.
    var kind: NodeKind {
        switch self {
        case .mapping: return .mapping
        case .sequence: return .list
        case .alias: return .string
        case .scalar:
            switch tag.rawValue {
            case Tag.Name.null.rawValue: return .null
            case Tag.Name.bool.rawValue: return .bool
            case Tag.Name.int.rawValue: return .int
            case Tag.Name.float.rawValue: return .float
            default: return .string
            }
        }
    }

    /// The 1-based line the node starts on.
    var line: Int {
        mark?.line ?? 1
    }

    /// How error messages name what was found: `a mapping`, `integer 5`, `string 'abc'`.
    var found: String {
        StubFileParser.found(self)
    }
}

extension Node {
    /// Whether the tree, every alias expanded, has more than `limit` nodes. Counting stops at
    /// the limit, so the answer costs at most `limit` steps however far aliases multiply: Yams
    /// hands back aliases already expanded (shared copies), and a kilobyte of anchors, each
    /// listing the previous one ten times, stands for a billion nodes.
    func hasMoreNodes(than limit: Int) -> Bool {
        var remaining = limit
        func visit(_ node: Node) -> Bool {
            remaining -= 1
            guard remaining >= 0 else { return false }
            switch node {
            case .mapping(let mapping):
                for (key, value) in mapping {
                    guard visit(key), visit(value) else { return false }
                }
            case .sequence(let sequence):
                for element in sequence {
                    guard visit(element) else { return false }
                }
            case .scalar, .alias:
                break
            }
            return true
        }
        return !visit(self)
    }
}
