import BSON

/// A compiled update is a tree, one path component a level, as in MongoDB: every operator's paths are
/// merged into it, so conflicts show at compile time and fields are visited in one well-defined order.
indirect enum UpdateNode: Sendable {
    /// An operator applied at this path.
    case leaf(UpdateLeaf)
    /// Children by field name (or array index), plus the positional `$` child.
    case object(UpdateObjectNode)
    /// `$[]` and `$[identifier]` children, applied to the elements of the array at this path.
    case array(UpdateArrayNode)
}

/// An operator at the end of its path.
struct UpdateLeaf: Sendable {
    let path: UpdatePath
    let modifier: UpdateModifier
}

struct UpdateObjectNode: Sendable {
    private(set) var children: [String: UpdateNode] = [:]
    /// Child names in the order MongoDB 5.0+ applies them (see `precedes`).
    private(set) var orderedNames: [String] = []
    var positional: UpdateNode?

    func child(_ name: String) -> UpdateNode? { children[name] }

    mutating func setChild(_ name: String, _ node: UpdateNode) {
        if children.updateValue(node, forKey: name) == nil {
            let position = orderedNames.firstIndex { Self.precedes(name, $0) } ?? orderedNames.endIndex
            orderedNames.insert(name, at: position)
        }
    }

    /// MongoDB 5.0+ visits fields with string names in lexicographic order and numeric names (array
    /// indexes) in numeric order, so `a.2` comes before `a.10`. New fields are therefore appended in this
    /// order, whatever the order of the update document.
    static func precedes(_ lhs: String, _ rhs: String) -> Bool {
        if isCanonicalIndex(lhs), isCanonicalIndex(rhs), lhs.utf8.count != rhs.utf8.count {
            return lhs.utf8.count < rhs.utf8.count
        }
        return lhs.utf8.lexicographicallyPrecedes(rhs.utf8)
    }

    private static func isCanonicalIndex(_ name: String) -> Bool {
        guard let first = name.utf8.first else { return false }
        return name.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } && (first != 0x30 || name.utf8.count == 1)
    }
}

struct UpdateArrayNode: Sendable {
    /// The `$[]` child.
    var all: UpdateNode?
    /// `$[identifier]` children by identifier.
    var filtered: [String: UpdateNode] = [:]
}

extension UpdateNode {
    /// Adds `leaf` below this node, which stands for the first `index` components of its path. Throws
    /// MongoDB's conflict error when the path runs into, or through, a path already present.
    mutating func insert(_ leaf: UpdateLeaf, from index: Int) throws(StoreError) {
        let path = leaf.path
        let component = path.components[index]
        let isLast = index == path.components.count - 1
        let existing = child(for: component)
        if isLast {
            guard existing == nil else { throw Self.conflict(path, at: path.description) }
            setChild(.leaf(leaf), for: component)
            return
        }
        let wantsArrayNode = path.components[index + 1].isArrayUpdate
        var next: UpdateNode
        switch existing {
        case nil: next = wantsArrayNode ? .array(UpdateArrayNode()) : .object(UpdateObjectNode())
        case .object(let node)? where !wantsArrayNode: next = .object(node)
        case .array(let node)? where wantsArrayNode: next = .array(node)
        default: throw Self.conflict(path, at: path.prefix(through: index))
        }
        try next.insert(leaf, from: index + 1)
        setChild(next, for: component)
    }

    private static func conflict(_ path: UpdatePath, at prefix: String) -> StoreError {
        .conflictingUpdateOperators("Updating the path '\(path)' would create a conflict at '\(prefix)'")
    }

    private func child(for component: UpdatePathComponent) -> UpdateNode? {
        switch (self, component) {
        case (.object(let node), .field(let name)): node.child(name)
        case (.object(let node), .positional): node.positional
        case (.array(let node), .allElements): node.all
        case (.array(let node), .filteredElements(let identifier)): node.filtered[identifier]
        default: nil
        }
    }

    /// `insert` chooses each node's kind from the component after it, so a component always lands in a
    /// node of the matching kind.
    private mutating func setChild(_ child: UpdateNode, for component: UpdatePathComponent) {
        switch (self, component) {
        case (.object(var node), .field(let name)):
            node.setChild(name, child)
            self = .object(node)
        case (.object(var node), .positional):
            node.positional = child
            self = .object(node)
        case (.array(var node), .allElements):
            node.all = child
            self = .array(node)
        case (.array(var node), .filteredElements(let identifier)):
            node.filtered[identifier] = child
            self = .array(node)
        default:
            break
        }
    }

    /// Two subtrees that apply to the same value at run time (`a.$[]` and `a.$[x]` on one element, or
    /// `a.$` and `a.0`), merged; two operators on one path are MongoDB's run-time conflict.
    static func merged(_ lhs: UpdateNode, _ rhs: UpdateNode, at path: String) throws(StoreError) -> UpdateNode {
        switch (lhs, rhs) {
        case (.object(var result), .object(let other)):
            for name in other.orderedNames {
                guard let node = other.child(name) else { continue }
                let combined = try result.child(name).map { (existing) throws(StoreError) in
                    try merged(existing, node, at: path + "." + name)
                }
                result.setChild(name, combined ?? node)
            }
            if let positional = other.positional {
                result.positional =
                    try result.positional.map { (existing) throws(StoreError) in
                        try merged(existing, positional, at: path + ".$")
                    } ?? positional
            }
            return .object(result)
        case (.array(var result), .array(let other)):
            if let all = other.all {
                result.all =
                    try result.all.map { (existing) throws(StoreError) in
                        try merged(existing, all, at: path + ".$[]")
                    } ?? all
            }
            for (identifier, node) in other.filtered {
                result.filtered[identifier] =
                    try result.filtered[identifier].map { (existing) throws(StoreError) in
                        try merged(existing, node, at: path + ".$[\(identifier)]")
                    } ?? node
            }
            return .array(result)
        default:
            throw .conflictingUpdateOperators("Update created a conflict at '\(path)'")
        }
    }

    /// Every `$[identifier]` used below this node.
    var filterIdentifiers: Set<String> {
        switch self {
        case .leaf: return []
        case .object(let node):
            var result = node.positional?.filterIdentifiers ?? []
            for child in node.children.values { result.formUnion(child.filterIdentifiers) }
            return result
        case .array(let node):
            var result = Set(node.filtered.keys)
            if let all = node.all { result.formUnion(all.filterIdentifiers) }
            for child in node.filtered.values { result.formUnion(child.filterIdentifiers) }
            return result
        }
    }
}
