import BSON
import DocumentStore

/// A command document's fields read with the checks MongoDB makes, failing with its error codes.
struct CommandArguments {
    let command: BSONDocument
    let name: String

    init(_ command: BSONDocument) {
        self.command = command
        self.name = command.keys.first ?? ""
    }

    /// The collection a command names in its first field.
    func collection() throws(StoreError) -> String {
        guard let value = command[name]?.stringValue, !value.isEmpty else {
            throw StoreError(
                code: 73, message: "collection name has invalid type \(command[name]?.typeName ?? "missing")")
        }
        return value
    }

    func document(_ key: String) throws(StoreError) -> BSONDocument? {
        guard let value = command[key], value != .null else { return nil }
        guard case .document(let document) = value else {
            throw StoreError(
                code: .typeMismatch,
                message: "BSON field '\(name).\(key)' is the wrong type '\(value.typeName)', expected type 'object'")
        }
        return document
    }

    func documents(_ key: String) throws(StoreError) -> [BSONDocument]? {
        guard let value = command[key] else { return nil }
        guard case .array(let values) = value else {
            throw StoreError(
                code: .typeMismatch,
                message: "BSON field '\(name).\(key)' is the wrong type '\(value.typeName)', expected type 'array'")
        }
        return try values.map { element throws(StoreError) in
            guard case .document(let document) = element else {
                throw StoreError(
                    code: .typeMismatch,
                    message: "BSON field '\(name).\(key)' holds a '\(element.typeName)', expected type 'object'")
            }
            return document
        }
    }

    func integer(_ key: String) throws(StoreError) -> Int? {
        guard let value = command[key], value != .null else { return nil }
        guard value.isNumber, let number = value.doubleValue, number.isFinite, abs(number) < 9e18 else {
            throw StoreError(
                code: .typeMismatch,
                message: "BSON field '\(name).\(key)' is the wrong type '\(value.typeName)', expected a number")
        }
        return Int(number)
    }

    func count(_ key: String) throws(StoreError) -> Int {
        let value = try integer(key) ?? 0
        guard value >= 0 else {
            throw StoreError(code: 51024, message: "BSON field '\(key)' value must be >= 0, actual value '\(value)'")
        }
        return value
    }

    func bool(_ key: String) -> Bool {
        switch command[key] {
        case .bool(let value)?: value
        case let value? where value.isNumber: value.doubleValue != 0
        default: false
        }
    }

    func maxTime() throws(StoreError) -> Duration? {
        let milliseconds = try count("maxTimeMS")
        return milliseconds > 0 ? .milliseconds(milliseconds) : nil
    }
}
