/// Dotted paths (`volumeInfo.title`, `tokens.0`): plain traversal, where a numeric component indexes an
/// array. The query engine's array-expanding semantics build on top of these.
extension BSONDocument {
    /// The value at a dotted path, or nil when any component is missing.
    public func value(atPath path: String) -> BSON? {
        value(at: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    public func value<C: Collection>(at components: C) -> BSON? where C.Element == String {
        guard let first = components.first, let head = self[first] else { return nil }
        return head.value(at: components.dropFirst())
    }

    /// Sets the value at a dotted path, creating missing intermediate documents. An array is indexed by a
    /// numeric component and padded with nulls up to it, as MongoDB's `$set` does.
    /// A path may have at most `BSONDocument.maximumNestingDepth - 1` components, so that the document it
    /// builds can still be encoded (and the recursion here stays shallow whatever the path's source).
    public mutating func setValue(_ value: BSON, atPath path: String) throws(BSONPathError) {
        try setValue(value, at: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...])
    }

    public mutating func setValue(_ value: BSON, at components: ArraySlice<String>) throws(BSONPathError) {
        guard components.count < BSONDocument.maximumNestingDepth else {
            throw BSONPathError.tooManyComponents(count: components.count)
        }
        guard let first = components.first, !first.isEmpty else { throw BSONPathError.emptyComponent }
        let rest = components.dropFirst()
        if rest.isEmpty {
            self[first] = value
            return
        }
        var child = self[first] ?? .document(BSONDocument())
        try child.setValue(value, at: rest, parentPath: first)
        self[first] = child
    }

    /// Removes the value at a dotted path; an array element is set to null (MongoDB's `$unset` on `a.0`).
    @discardableResult
    public mutating func removeValue(atPath path: String) -> BSON? {
        removeValue(at: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)[...])
    }

    @discardableResult
    public mutating func removeValue(at components: ArraySlice<String>) -> BSON? {
        guard let first = components.first else { return nil }
        let rest = components.dropFirst()
        if rest.isEmpty { return removeValue(forKey: first) }
        guard var child = self[first] else { return nil }
        let removed = child.removeValue(at: rest)
        if removed != nil { self[first] = child }
        return removed
    }
}

extension BSON {
    /// The value at the remaining path components below this value.
    public func value<C: Collection>(at components: C) -> BSON? where C.Element == String {
        guard let first = components.first else { return self }
        switch self {
        case .document(let d):
            return d.value(at: components)
        case .array(let a):
            guard let i = Int(first), i >= 0, i < a.count, first.allSatisfy(\.isASCIIDigit) else { return nil }
            return a[i].value(at: components.dropFirst())
        default:
            return nil
        }
    }

    mutating func setValue(_ value: BSON, at components: ArraySlice<String>, parentPath: String)
        throws(BSONPathError)
    {
        guard let first = components.first, !first.isEmpty else { throw BSONPathError.emptyComponent }
        switch self {
        case .document(var d):
            self = .null  // release the copy so the document is mutated uniquely
            try d.setValue(value, at: components)
            self = .document(d)
        case .array(var a):
            guard first.allSatisfy(\.isASCIIDigit), let i = Int(first) else {
                throw BSONPathError.notTraversable(path: parentPath, component: first, type: typeName)
            }
            self = .null
            while a.count <= i { a.append(.null) }
            let rest = components.dropFirst()
            if rest.isEmpty {
                a[i] = value
            } else {
                if case .null = a[i] { a[i] = .document(BSONDocument()) }
                // MongoDB names only the immediate element in its error: {0: <value>}.
                try a[i].setValue(value, at: rest, parentPath: first)
            }
            self = .array(a)
        default:
            throw BSONPathError.notTraversable(path: parentPath, component: first, type: typeName)
        }
    }

    mutating func removeValue(at components: ArraySlice<String>) -> BSON? {
        guard let first = components.first else { return nil }
        switch self {
        case .document(var d):
            self = .null
            let removed = d.removeValue(at: components)
            self = .document(d)
            return removed
        case .array(var a):
            guard first.allSatisfy(\.isASCIIDigit), let i = Int(first), i < a.count else { return nil }
            self = .null
            defer { self = .array(a) }
            let rest = components.dropFirst()
            if rest.isEmpty {
                let old = a[i]
                a[i] = .null
                return old
            }
            return a[i].removeValue(at: rest)
        default:
            return nil
        }
    }
}

/// Why a dotted path could not be written.
public enum BSONPathError: Error, Equatable, CustomStringConvertible {
    case emptyComponent
    /// `component` cannot be created below `path`, which holds a value of `type`.
    case notTraversable(path: String, component: String, type: String)
    /// The path has `count` components, more than documents may nest.
    case tooManyComponents(count: Int)

    public var description: String {
        switch self {
        case .emptyComponent:
            "a field path must not contain an empty component"
        case .notTraversable(let path, let component, let type):
            "Cannot create field '\(component)' in element {\(path): <\(type)>}"
        case .tooManyComponents(let count):
            "a field path of \(count) components is deeper than documents may nest (\(BSONDocument.maximumNestingDepth))"
        }
    }
}

extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
