import BSON

/// Reads one JSON object of the FCM v1 API into model fields, the way FCM's own JSON parser does: names in
/// snake_case or lowerCamelCase, `null` meaning absent, unknown names and wrong types rejected with the field's
/// path in the message (`message.android.ttl`).
struct FCMObjectReader {
    let document: BSONDocument
    /// Where this object sits in the request (`message.android`), for error messages.
    let path: String
    private let known: Set<String>

    /// Reads `value` as an object whose field names (snake_case) are `fields`.
    init(_ value: BSON, path: String, fields: [String]) throws(PushError) {
        guard case .document(let document) = value else {
            throw Self.invalidValue(at: path, expected: "object", value)
        }
        self.document = document
        self.path = path
        var known = Set<String>()
        for field in fields {
            known.insert(field)
            known.insert(Self.camelCase(field))
        }
        self.known = known
        for key in document.keys where !known.contains(key) {
            throw PushError(
                code: .invalidArgument,
                message: "Invalid JSON payload received. Unknown name \"\(key)\" at '\(path)': Cannot find field.",
                field: path)
        }
        if let duplicate = document.firstDuplicateKey {
            throw PushError(
                code: .invalidArgument,
                message: "Invalid JSON payload received. Duplicate field \"\(duplicate)\" at '\(path)'.",
                field: path)
        }
    }

    func childPath(_ field: String) -> String { "\(path).\(field)" }

    /// The value under the snake_case name or its camelCase spelling; nil when absent or `null`.
    func value(_ field: String) throws(PushError) -> BSON? {
        let snake = document[field]
        let camelName = Self.camelCase(field)
        let camel = camelName == field ? nil : document[camelName]
        if let snake, let camel, snake != .null, camel != .null {
            throw PushError(
                code: .invalidArgument,
                message:
                    "Invalid JSON payload received. Field '\(childPath(field))' is set twice (as \"\(field)\" and \"\(camelName)\").",
                field: childPath(field))
        }
        let found = snake ?? camel
        if found == .null { return nil }
        return found
    }

    func string(_ field: String) throws(PushError) -> String? {
        guard let value = try value(field) else { return nil }
        guard case .string(let string) = value else {
            throw Self.invalidValue(at: childPath(field), expected: "TYPE_STRING", value)
        }
        return string
    }

    func bool(_ field: String) throws(PushError) -> Bool? {
        guard let value = try value(field) else { return nil }
        guard case .bool(let bool) = value else {
            throw Self.invalidValue(at: childPath(field), expected: "TYPE_BOOL", value)
        }
        return bool
    }

    func int32(_ field: String) throws(PushError) -> Int32? {
        guard let value = try value(field) else { return nil }
        switch value {
        case .int32(let n): return n
        case .int64(let n) where Int64(Int32.min) <= n && n <= Int64(Int32.max): return Int32(n)
        case .double(let d) where d.rounded() == d && abs(d) <= Double(Int32.max): return Int32(d)
        // Protobuf's JSON form also accepts integers written as strings.
        case .string(let s) where Int32(s) != nil: return Int32(s)
        default: throw Self.invalidValue(at: childPath(field), expected: "TYPE_INT32", value)
        }
    }

    func double(_ field: String) throws(PushError) -> Double? {
        guard let value = try value(field) else { return nil }
        if let number = value.doubleValue { return number }
        throw Self.invalidValue(at: childPath(field), expected: "TYPE_FLOAT", value)
    }

    func strings(_ field: String) throws(PushError) -> [String]? {
        guard let value = try value(field) else { return nil }
        guard case .array(let elements) = value else {
            throw Self.invalidValue(at: childPath(field), expected: "repeated TYPE_STRING", value)
        }
        var strings: [String] = []
        for (i, element) in elements.enumerated() {
            guard case .string(let string) = element else {
                throw Self.invalidValue(at: "\(childPath(field))[\(i)]", expected: "TYPE_STRING", element)
            }
            strings.append(string)
        }
        return strings
    }

    /// A `map<string, string>` field (`data`, `headers`).
    func stringMap(_ field: String) throws(PushError) -> [String: String]? {
        guard let value = try value(field) else { return nil }
        guard case .document(let map) = value else {
            throw Self.invalidValue(at: childPath(field), expected: "map<string, string>", value)
        }
        var result: [String: String] = [:]
        for (key, element) in map {
            guard case .string(let string) = element else {
                throw Self.invalidValue(at: "\(childPath(field))[\"\(key)\"]", expected: "TYPE_STRING", element)
            }
            guard result.updateValue(string, forKey: key) == nil else {
                throw PushError(
                    code: .invalidArgument,
                    message: "Invalid JSON payload received. Duplicate key \"\(key)\" at '\(childPath(field))'.",
                    field: childPath(field))
            }
        }
        return result
    }

    /// A `google.protobuf.Struct` field (`apns.payload`, `webpush.notification`): any JSON object.
    func object(_ field: String) throws(PushError) -> BSONDocument? {
        guard let value = try value(field) else { return nil }
        guard case .document(let document) = value else {
            throw Self.invalidValue(at: childPath(field), expected: "google.protobuf.Struct", value)
        }
        return document
    }

    static func invalidValue(at path: String, expected: String, _ value: BSON) -> PushError {
        var shown = value.extendedJSON(mode: .relaxed)
        if shown.utf8.count > 64 { shown = String(shown.prefix(61)) + "..." }
        return PushError(
            code: .invalidArgument, message: "Invalid value at '\(path)' (\(expected)), \(shown)", field: path)
    }

    /// `click_action` → `clickAction`, as protobuf's JSON mapping names fields.
    static func camelCase(_ snake: String) -> String {
        var result = ""
        var upperNext = false
        for character in snake {
            if character == "_" {
                upperNext = true
            } else if upperNext {
                result += character.uppercased()
                upperNext = false
            } else {
                result.append(character)
            }
        }
        return result
    }
}

extension BSONDocument {
    /// Appends only present values: the FCM JSON leaves unset fields out.
    mutating func appendIfPresent(_ key: String, _ value: String?) {
        if let value { append(key, .string(value)) }
    }

    mutating func appendIfPresent(_ key: String, _ value: Bool?) {
        if let value { append(key, .bool(value)) }
    }

    mutating func appendIfPresent(_ key: String, _ value: Int32?) {
        if let value { append(key, .int32(value)) }
    }

    mutating func appendIfPresent(_ key: String, _ value: BSONDocument?) {
        if let value { append(key, .document(value)) }
    }

    mutating func appendIfPresent(_ key: String, _ value: [String]?) {
        if let value { append(key, .array(value.map(BSON.string))) }
    }

    /// A string map with its keys sorted, so the same message always prints the same bytes.
    mutating func appendIfPresent(_ key: String, _ value: [String: String]?) {
        if let value { append(key, .document(BSONDocument.sortedMap(value))) }
    }

    static func sortedMap(_ map: [String: String]) -> BSONDocument {
        var document = BSONDocument()
        for key in map.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            document.append(key, .string(map[key]!))
        }
        return document
    }
}
