import BSON

/// One component of an update path.
enum UpdatePathComponent: Hashable, Sendable {
    /// A field name, or an array index when the value there is an array.
    case field(String)
    /// `$`: the array element the query matched.
    case positional
    /// `$[]`: every element of the array.
    case allElements
    /// `$[identifier]`: the elements that the array filter named `identifier` matches.
    case filteredElements(String)

    init(_ text: String) {
        if text == "$" {
            self = .positional
        } else if text == "$[]" {
            self = .allElements
        } else if text.hasPrefix("$["), text.hasSuffix("]") {
            self = .filteredElements(String(text.dropFirst(2).dropLast()))
        } else {
            self = .field(text)
        }
    }

    var text: String {
        switch self {
        case .field(let name): name
        case .positional: "$"
        case .allElements: "$[]"
        case .filteredElements(let identifier): "$[\(identifier)]"
        }
    }

    /// True for `$[]` and `$[identifier]`, which need an array at the path before them.
    var isArrayUpdate: Bool {
        switch self {
        case .allElements, .filteredElements: true
        case .field, .positional: false
        }
    }
}

/// A dotted path from an update document, checked as MongoDB checks it when the update is parsed.
struct UpdatePath: Sendable, CustomStringConvertible {
    let components: [UpdatePathComponent]
    let description: String

    /// Paths deeper than this cannot be stored anyway, and bounding them bounds the tree walk's recursion.
    static let maximumComponents = 200

    init(_ dotted: String) throws(StoreError) {
        guard !dotted.isEmpty else {
            throw StoreError(code: .emptyFieldName, message: "An empty update path is not valid.")
        }
        // Most paths are one field name: no splitting (splitting by Characters cost more than the rest of
        // compiling an update).
        let parts =
            dotted.utf8.contains(UInt8(ascii: "."))
            ? dotted.split(separator: ".", omittingEmptySubsequences: false) : [dotted[...]]
        guard parts.count <= Self.maximumComponents else {
            throw .badValue(
                "The update path '\(dotted.prefix(100))…' has more than \(Self.maximumComponents) components")
        }
        var components: [UpdatePathComponent] = []
        var positionalCount = 0
        for (index, part) in parts.enumerated() {
            guard !part.isEmpty else {
                throw StoreError(
                    code: .emptyFieldName,
                    message: "The update path '\(dotted)' contains an empty field name, which is not allowed.")
            }
            let component = UpdatePathComponent(String(part))
            switch component {
            case .field(let name) where name.hasPrefix("$"):
                let prefix = parts[...index].joined(separator: ".")
                throw StoreError(
                    code: .dollarPrefixedFieldName,
                    message: "The dollar ($) prefixed field '\(name)' in '\(prefix)' is not valid for storage.")
            case .positional:
                positionalCount += 1
                if index == 0 {
                    throw .badValue(
                        "Cannot have positional (i.e. '$') element in the first position in path '\(dotted)'")
                }
            case .allElements, .filteredElements:
                if index == 0 {
                    throw .badValue(
                        "Cannot have array filter identifier (i.e. '$[<id>]') element in the first position in path '\(dotted)'"
                    )
                }
            case .field:
                break
            }
            components.append(component)
        }
        if positionalCount > 1 {
            throw .badValue("Too many positional (i.e. '$') elements found in path '\(dotted)'")
        }
        self.components = components
        self.description = dotted
    }

    /// The path up to and including component `index`, as written.
    func prefix(through index: Int) -> String {
        components[...index].map(\.text).joined(separator: ".")
    }

    var isDynamic: Bool {
        components.contains { if case .field = $0 { false } else { true } }
    }

    /// True when `self` equals `other` or is one of its ancestors.
    func isPrefix(of other: UpdatePath) -> Bool {
        components.count <= other.components.count && zip(components, other.components).allSatisfy { $0 == $1 }
    }
}
