/// A parsed YAML node with the position it started at, so every configuration error can point at it.
package struct YAMLNode: Sendable, Equatable {
    package enum Value: Sendable, Equatable {
        /// A scalar's text; `isPlain` is false for quoted and block scalars (so `"true"` stays a string).
        case scalar(String, isPlain: Bool)
        case sequence([YAMLNode])
        /// Key/value pairs in file order.
        case mapping([(key: YAMLNode, value: YAMLNode)])

        package static func == (lhs: Value, rhs: Value) -> Bool {
            switch (lhs, rhs) {
            case (.scalar(let a, let ap), .scalar(let b, let bp)): a == b && ap == bp
            case (.sequence(let a), .sequence(let b)): a == b
            case (.mapping(let a), .mapping(let b)):
                a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
            default: false
            }
        }
    }

    package var value: Value
    package var location: SourceLocation

    package init(_ value: Value, at location: SourceLocation) {
        self.value = value
        self.location = location
    }

    /// The scalar's text, or nil for collections.
    package var scalar: String? {
        if case .scalar(let text, _) = value { return text }
        return nil
    }

    /// True for a plain `null`, `~` or empty scalar (YAML 1.1's null).
    package var isNull: Bool {
        if case .scalar(let text, isPlain: true) = value { return ["", "~", "null", "Null", "NULL"].contains(text) }
        return false
    }

    /// A mapping's value for a scalar key.
    package subscript(key: String) -> YAMLNode? {
        guard case .mapping(let pairs) = value else { return nil }
        return pairs.first { $0.key.scalar == key }?.value
    }

    /// What kind of node this is, for messages like "expected a mapping, found a sequence".
    package var kindName: String {
        switch value {
        case .scalar: "a scalar"
        case .sequence: "a sequence"
        case .mapping: "a mapping"
        }
    }
}
