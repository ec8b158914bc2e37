import BSON

/// A secondary index of a collection as the store keeps it: the key pattern compiled to paths and
/// directions, and the catalog id its entries are stored under.
struct IndexDefinition: Sendable {
    struct Field: Sendable {
        var path: String
        var components: [String]
        var descending: Bool
    }

    var id: Int64
    var name: String
    var fields: [Field]
    var unique: Bool
    /// The key pattern as given (`{"name": 1}`), for `listIndexes` and error messages.
    var keyPattern: BSONDocument

    init(id: Int64, name: String, keyPattern: BSONDocument, unique: Bool) throws(StoreError) {
        guard !keyPattern.isEmpty else { throw .location(67, "index key pattern must not be empty") }
        var fields: [Field] = []
        for (path, direction) in keyPattern {
            guard !path.isEmpty, !path.hasPrefix("$"), !path.split(separator: ".", omittingEmptySubsequences: false).contains("") else {
                throw .location(67, "bad index key pattern \(keyPattern): invalid field name '\(path)'")
            }
            guard let number = direction.doubleValue, number != 0, !number.isNaN else {
                throw .location(67, "bad index key pattern \(keyPattern): values must be 1 or -1, got \(direction) for '\(path)'")
            }
            let components = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            fields.append(Field(path: path, components: components, descending: number < 0))
        }
        self.id = id
        self.name = name
        self.fields = fields
        self.unique = unique
        self.keyPattern = keyPattern
    }

    /// MongoDB's default name: `name_1`, `a_1_b_-1`.
    static func defaultName(for keyPattern: BSONDocument) -> String {
        keyPattern.map { key, value in
            let direction = value.int64Value.map(String.init) ?? value.doubleValue.map { "\($0)" } ?? "1"
            return "\(key)_\(direction)"
        }.joined(separator: "_")
    }

    /// The catalog form, as `listIndexes` reports it.
    var specification: BSONDocument {
        var spec: BSONDocument = ["v": 2, "key": .document(keyPattern), "name": .string(name)]
        if unique { spec["unique"] = true }
        return spec
    }

    /// The index keys of a document: one per array element for a multikey field, deduplicated.
    /// A missing field indexes as null, an empty array as undefined (as MongoDB does).
    func keys(for document: BSONDocument) throws(StoreError) -> [[UInt8]] {
        var perField: [[[UInt8]]] = []
        var arrayFields: [String] = []
        for field in fields {
            var values: [BSON] = []
            let isArray = Self.collect(.document(document), field.components[...], into: &values)
            if isArray { arrayFields.append(field.path) }
            if values.isEmpty { values = [.null] }
            var encoded: [[UInt8]] = []
            var seen = Set<[UInt8]>()
            for value in values {
                var bytes = try IndexKey.encode(value)
                if field.descending { bytes = bytes.map { ~$0 } }
                if seen.insert(bytes).inserted { encoded.append(bytes) }
            }
            perField.append(encoded)
        }
        if arrayFields.count > 1 {
            throw .location(171, "cannot index parallel arrays [\(arrayFields[0])] [\(arrayFields[1])]")
        }
        var keys: [[UInt8]] = [[]]
        for options in perField {
            keys = keys.flatMap { prefix in options.map { prefix + $0 } }
        }
        return keys
    }

    /// Gathers the values at `components` below `value`, expanding arrays the way multikey indexes do.
    /// Returns true when an array was expanded.
    @discardableResult
    private static func collect(_ value: BSON, _ components: ArraySlice<String>, into values: inout [BSON]) -> Bool {
        guard let first = components.first else {
            if case .array(let elements) = value {
                values.append(contentsOf: elements.isEmpty ? [.undefined] : elements)
                return true
            }
            values.append(value)
            return false
        }
        switch value {
        case .document(let d):
            guard let child = d[first] else { return false }
            return collect(child, components.dropFirst(), into: &values)
        case .array(let elements):
            if let position = Int(first), first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                guard position < elements.count else { return false }
                return collect(elements[position], components.dropFirst(), into: &values)
            }
            for element in elements where element.documentValue != nil {
                collect(element, components, into: &values)
            }
            return true
        default:
            return false
        }
    }
}
