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
            guard !path.isEmpty, !path.hasPrefix("$"),
                !path.split(separator: ".", omittingEmptySubsequences: false).contains("")
            else {
                throw .location(67, "bad index key pattern \(keyPattern): invalid field name '\(path)'")
            }
            guard let number = direction.doubleValue, number != 0, !number.isNaN else {
                throw .location(
                    67, "bad index key pattern \(keyPattern): values must be 1 or -1, got \(direction) for '\(path)'")
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

    /// One index entry: the key bytes and the field values they encode (for duplicate-key messages).
    struct Entry {
        var key: [UInt8]
        var values: [BSON]
    }

    /// The index entries of a document: one per array element for a multikey field, deduplicated.
    /// A missing field indexes as null, an empty array as undefined (as MongoDB does).
    func entries(for document: BSONDocument) throws(StoreError) -> [Entry] {
        if let entry = try singleEntry(for: document) { return [entry] }
        var perField: [[(bytes: [UInt8], value: BSON)]] = []
        var arrayFields: [String] = []
        for field in fields {
            var values: [BSON] = []
            let isArray = Self.collectValues(.document(document), field.components[...], into: &values)
            if isArray { arrayFields.append(field.path) }
            if values.isEmpty { values = [.null] }
            var encoded: [(bytes: [UInt8], value: BSON)] = []
            var seen = Set<[UInt8]>()
            for value in values {
                var bytes = try IndexKey.encode(value)
                if field.descending { bytes = bytes.map { ~$0 } }
                if seen.insert(bytes).inserted { encoded.append((bytes, value)) }
            }
            perField.append(encoded)
        }
        if arrayFields.count > 1 {
            throw .location(171, "cannot index parallel arrays [\(arrayFields[0])] [\(arrayFields[1])]")
        }
        var entries = [Entry(key: [], values: [])]
        for options in perField {
            entries = entries.flatMap { prefix in
                options.map { Entry(key: prefix.key + $0.bytes, values: prefix.values + [$0.value]) }
            }
        }
        return entries
    }

    /// The one entry of a document whose indexed fields are all top-level and none an array (most documents of
    /// most indexes: every write computes its entries), built without the general path's sets and products;
    /// nil when the general path must decide.
    private func singleEntry(for document: BSONDocument) throws(StoreError) -> Entry? {
        var key: [UInt8] = []
        var values: [BSON] = []
        values.reserveCapacity(fields.count)
        for field in fields {
            guard field.components.count == 1 else { return nil }
            let value = document[field.components[0]] ?? .null
            if case .array = value { return nil }
            let bytes = try IndexKey.encode(value)
            if field.descending {
                key.append(contentsOf: bytes.lazy.map { ~$0 })
            } else {
                key.append(contentsOf: bytes)
            }
            values.append(value)
        }
        return Entry(key: key, values: values)
    }

    /// `{ name: "x" }`, as the duplicate-key message shows the key.
    func describe(_ entry: Entry) -> String {
        BSON.document(BSONDocument(zip(fields.map(\.path), entry.values))).messageText
    }

    /// Gathers the values at `components` below `value`, expanding arrays the way multikey indexes do.
    /// Returns true when an array was expanded.
    /// An empty array gives `undefined` (its index key) unless `emptyArrayGivesUndefined` is false.
    @discardableResult
    static func collectValues(
        _ value: BSON, _ components: ArraySlice<String>, into values: inout [BSON],
        emptyArrayGivesUndefined: Bool = true
    ) -> Bool {
        guard let first = components.first else {
            if case .array(let elements) = value {
                values.append(contentsOf: elements.isEmpty && emptyArrayGivesUndefined ? [.undefined] : elements)
                return true
            }
            values.append(value)
            return false
        }
        switch value {
        case .document(let d):
            guard let child = d[first] else { return false }
            return collectValues(
                child, components.dropFirst(), into: &values, emptyArrayGivesUndefined: emptyArrayGivesUndefined)
        case .array(let elements):
            if let position = Int(first), first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) {
                guard position < elements.count else { return false }
                return collectValues(
                    elements[position], components.dropFirst(), into: &values,
                    emptyArrayGivesUndefined: emptyArrayGivesUndefined)
            }
            for element in elements where element.documentValue != nil {
                collectValues(element, components, into: &values, emptyArrayGivesUndefined: emptyArrayGivesUndefined)
            }
            return true
        default:
            return false
        }
    }
}
