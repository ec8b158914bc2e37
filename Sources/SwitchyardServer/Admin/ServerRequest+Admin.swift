import BSON
import Foundation

/// Reading the admin API's query arguments and bodies, each problem a 400 that names the argument.
extension ServerRequest {
    /// The body as one Extended JSON document; a malformed one is a 400 with the line and column.
    func bodyDocument() throws(APIError) -> BSONDocument {
        guard !body.isEmpty else {
            throw APIError.badRequest("the request needs an Extended JSON document as its body")
        }
        do {
            return try ExtendedJSON.parseDocument(body)
        } catch {
            throw APIError.badRequest("malformed Extended JSON body at \(error.line):\(error.column): \(error.message)")
        }
    }

    /// A query argument holding an Extended JSON document (`filter`, `sort`, `projection`); nil when absent.
    func documentArgument(_ name: String) throws(APIError) -> BSONDocument? {
        guard let text = query[name], !text.isEmpty else { return nil }
        do {
            return try ExtendedJSON.parseDocument(text)
        } catch {
            throw APIError.badRequest(
                "the '\(name)' argument is not an Extended JSON document: \(error.line):\(error.column): \(error.message)"
            )
        }
    }

    /// A whole-number query argument within `range`; `defaultValue` when absent.
    func integerArgument(_ name: String, default defaultValue: Int, in range: ClosedRange<Int>) throws(APIError) -> Int
    {
        guard let text = query[name], !text.isEmpty else { return defaultValue }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest(
                "the '\(name)' argument must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'"
            )
        }
        return value
    }

    /// A time argument: ISO 8601 (`2025-01-31T12:00:00Z`, fractions allowed) or milliseconds since 1970.
    func dateArgument(_ name: String) throws(APIError) -> Date? {
        guard let text = query[name], !text.isEmpty else { return nil }
        if let milliseconds = Int64(text) { return Date(timeIntervalSince1970: Double(milliseconds) / 1000) }
        let formatter = ISO8601DateFormatter()
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions.insert(.withFractionalSeconds)
        if let date = formatter.date(from: text) { return date }
        throw APIError.badRequest(
            "the '\(name)' argument must be an ISO 8601 time (2025-01-31T12:00:00Z) or milliseconds since 1970, not '\(text)'"
        )
    }

    /// A `true`/`false` query argument; `defaultValue` when absent.
    func booleanArgument(_ name: String, default defaultValue: Bool) throws(APIError) -> Bool {
        switch query[name] {
        case nil, "": return defaultValue
        case "true", "1": return true
        case "false", "0": return false
        case let other?: throw APIError.badRequest("the '\(name)' argument must be true or false, not '\(other)'")
        }
    }
}
