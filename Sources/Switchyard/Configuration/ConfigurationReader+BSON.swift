import BSON
import Foundation

/// How plain (unquoted) scalars become BSON values.
enum ScalarRules {
    /// YAML 1.1 core types: integers, floats, `true`/`false`, `null`/`~`/empty; anything else is a string.
    case yaml
    /// JSON literals only (`true`, `false`, `null`, numbers); anything else is an error.
    case json
}

extension ConfigurationReader {
    /// Converts a node to BSON. Quoted scalars stay strings; a single-key mapping with an Extended JSON
    /// wrapper (`$oid`, `$date`, `$numberLong`, `$numberInt`, `$numberDouble`) becomes the typed value.
    mutating func bson(_ node: YAMLNode, rules: ScalarRules) -> BSON? {
        guard spendConversionBudget(at: node) else { return nil }
        switch node.value {
        case .scalar(let text, let isPlain):
            return isPlain ? plainScalar(text, at: node, rules: rules) : .string(text)
        case .sequence(let items):
            var array: [BSON] = []
            for item in items {
                guard let value = bson(item, rules: rules) else { return nil }
                array.append(value)
            }
            return .array(array)
        case .mapping(let pairs):
            if pairs.count == 1, let key = pairs[0].key.scalar, key.hasPrefix("$") {
                switch extendedJSON(key, pairs[0].value, rules: rules) {
                case .value(let value): return value
                case .invalid: return nil
                case .notAWrapper: break
                }
            }
            return document(node, rules: rules).map(BSON.document)
        }
    }

    /// A mapping as a document, in file order.
    mutating func document(_ node: YAMLNode, rules: ScalarRules) -> BSONDocument? {
        guard let pairs = mapping(node, "a document") else { return nil }
        var document = BSONDocument()
        var failed = false
        for pair in pairs {
            guard let value = bson(pair.value, rules: rules) else {
                failed = true
                continue
            }
            document.append(pair.key, value)
        }
        return failed ? nil : document
    }

    /// Messages never repeat the scalar's text: the same reader parses `secrets.json`.
    private mutating func plainScalar(_ text: String, at node: YAMLNode, rules: ScalarRules) -> BSON? {
        switch rules {
        case .json:
            switch text {
            case "true": return .bool(true)
            case "false": return .bool(false)
            case "null": return .null
            default:
                guard Self.isJSONNumber(text) else {
                    error("invalid JSON value (strings need double quotes)", at: node)
                    return nil
                }
                return number(text, at: node)
            }
        case .yaml:
            if node.isNull { return .null }
            switch text {
            case "true", "True", "TRUE": return .bool(true)
            case "false", "False", "FALSE": return .bool(false)
            case ".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF": return .double(.infinity)
            case "-.inf", "-.Inf", "-.INF": return .double(-.infinity)
            case ".nan", ".NaN", ".NAN": return .double(.nan)
            default: break
            }
            let digits = text.replacingOccurrences(of: "_", with: "")
            if Self.isYAMLNumber(digits) { return number(digits, at: node) }
            if digits.hasPrefix("0x") || digits.hasPrefix("-0x") || digits.hasPrefix("+0x"),
                let value = Int64(digits.replacingOccurrences(of: "0x", with: ""), radix: 16)
            {
                return Int32(exactly: value).map(BSON.int32) ?? .int64(value)
            }
            return .string(text)
        }
    }

    /// Integers become int32 when they fit, else int64; anything with a fraction or exponent is a double.
    private mutating func number(_ text: String, at node: YAMLNode) -> BSON? {
        if !text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
            if let value = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) {
                return Int32(exactly: value).map(BSON.int32) ?? .int64(value)
            }
            error("integer out of range (more than 64 bits)", at: node)
            return nil
        }
        guard let value = Double(text), value.isFinite else {
            error("number out of range", at: node)
            return nil
        }
        return .double(value)
    }

    static func isJSONNumber(_ text: String) -> Bool {
        var c = Substring(text).utf8[...]
        func digits() -> Int {
            let count = c.prefix { $0 >= 48 && $0 <= 57 }.count
            c = c.dropFirst(count)
            return count
        }
        if c.first == 45 { c = c.dropFirst() }
        if c.first == 48 {
            c = c.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if c.first == 46 {
            c = c.dropFirst()
            guard digits() > 0 else { return false }
        }
        if c.first == 101 || c.first == 69 {
            c = c.dropFirst()
            if c.first == 43 || c.first == 45 { c = c.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return c.isEmpty
    }

    /// Decimal integers and floats as YAML 1.1 writes them (`+1`, `-2.5`, `1e3`, `.5`).
    static func isYAMLNumber(_ text: String) -> Bool {
        var c = Substring(text).utf8[...]
        if c.first == 43 || c.first == 45 { c = c.dropFirst() }
        let whole = c.prefix { $0 >= 48 && $0 <= 57 }.count
        c = c.dropFirst(whole)
        var fraction = 0
        if c.first == 46 {
            c = c.dropFirst()
            fraction = c.prefix { $0 >= 48 && $0 <= 57 }.count
            c = c.dropFirst(fraction)
        }
        guard whole + fraction > 0 else { return false }
        if c.first == 101 || c.first == 69 {
            c = c.dropFirst()
            if c.first == 43 || c.first == 45 { c = c.dropFirst() }
            let exponent = c.prefix { $0 >= 48 && $0 <= 57 }.count
            guard exponent > 0 else { return false }
            c = c.dropFirst(exponent)
        }
        return c.isEmpty
    }

    /// Extended JSON wrappers this reader understands. Keys that are query operators (`$gt`, `$regex`)
    /// return nil so the mapping stays a document; Extended JSON types not supported here are errors.
    private enum Wrapped {
        case value(BSON)
        case invalid
        case notAWrapper
    }

    private mutating func extendedJSON(_ key: String, _ value: YAMLNode, rules: ScalarRules) -> Wrapped {
        let text = value.scalar.flatMap { value.isNull ? nil : $0 }
        switch key {
        case "$oid":
            if let text, let id = ObjectId(hex: text) { return .value(.objectId(id)) }
            error("'$oid' must be a string of 24 hexadecimal digits", at: value)
        case "$numberLong":
            if let text, let number = Int64(text) { return .value(.int64(number)) }
            error("'$numberLong' must be a string holding a 64-bit integer", at: value)
        case "$numberInt":
            if let text, let number = Int32(text) { return .value(.int32(number)) }
            error("'$numberInt' must be a string holding a 32-bit integer", at: value)
        case "$numberDouble":
            switch text {
            case "Infinity": return .value(.double(.infinity))
            case "-Infinity": return .value(.double(-.infinity))
            case "NaN": return .value(.double(.nan))
            default:
                if let text, Self.isJSONNumber(text), let number = Double(text) { return .value(.double(number)) }
            }
            error("'$numberDouble' must be a string holding a number, Infinity, -Infinity or NaN", at: value)
        case "$date":
            if case .scalar(let text, let isPlain) = value.value {
                if !isPlain, let date = ISO8601Timestamp.parse(text) { return .value(.datetime(date)) }
                if isPlain, let milliseconds = Int64(text) {
                    return .value(.datetime(BSONDate(millisecondsSinceEpoch: milliseconds)))
                }
            } else if let nested = bson(value, rules: rules), case .int64(let milliseconds) = nested {
                return .value(.datetime(BSONDate(millisecondsSinceEpoch: milliseconds)))
            }
            error("'$date' must be an ISO-8601 string, milliseconds, or {\"$numberLong\": \"…\"}", at: value)
        case "$numberDecimal", "$binary", "$uuid", "$regularExpression", "$timestamp", "$symbol", "$code",
            "$scope", "$minKey", "$maxKey", "$undefined", "$dbPointer":
            error("Extended JSON '\(key)' is not supported in configuration files", at: value)
        default:
            return .notAWrapper
        }
        return .invalid
    }
}
