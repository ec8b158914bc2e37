import BSON
import DocumentStore

extension DocumentSchema {
    /// Why `value` (found at `path`, "" for the document itself) does not fit this schema; nil when it does.
    func violation(of value: BSON, at path: String) -> String? {
        let place = path.isEmpty ? "the document" : "'\(path)'"
        if let types, !types.isEmpty, !types.contains(where: { Self.value(value, hasType: $0) }) {
            return "\(place) must be of type \(types.joined(separator: " or ")), found \(value.typeName)"
        }
        if let allowedValues, !allowedValues.contains(value) {
            return "\(place) must be one of the schema's enum values"
        }
        if let number = value.doubleValue, value.isNumber {
            if let minimum, number < minimum.value || (minimum.exclusive && number == minimum.value) {
                return "\(place) must be \(minimum.exclusive ? "greater than" : "at least") \(minimum.value)"
            }
            if let maximum, number > maximum.value || (maximum.exclusive && number == maximum.value) {
                return "\(place) must be \(maximum.exclusive ? "less than" : "at most") \(maximum.value)"
            }
        }
        switch value {
        case .string(let text):
            let length = text.count
            if let minLength, length < minLength { return "\(place) must be at least \(minLength) characters long" }
            if let maxLength, length > maxLength { return "\(place) must be at most \(maxLength) characters long" }
            if let pattern,
                (try? QueryFilter(["value": ["$regex": .string(pattern)]]).evaluate(["value": value])) == nil
            {
                return "\(place) must match the pattern \(pattern)"
            }
        case .document(let document):
            return violation(of: document, at: path)
        case .array(let elements):
            if let minItems, elements.count < minItems { return "\(place) must have at least \(minItems) items" }
            if let maxItems, elements.count > maxItems { return "\(place) must have at most \(maxItems) items" }
            if uniqueItems {
                for (index, element) in elements.enumerated() where elements[..<index].contains(element) {
                    return "\(place) must not repeat items (item \(index) repeats an earlier one)"
                }
            }
            for (index, element) in elements.enumerated() {
                let schema: DocumentSchema?
                switch items {
                case .each(let each)?: schema = each
                case .tuple(let schemas)?: schema = index < schemas.count ? schemas[index] : nil
                case nil: schema = nil
                }
                let elementPath = path.isEmpty ? "\(index)" : "\(path).\(index)"
                if let schema, let problem = schema.violation(of: element, at: elementPath) { return problem }
            }
        default:
            break
        }
        return nil
    }

    private func violation(of document: BSONDocument, at path: String) -> String? {
        let place = path.isEmpty ? "the document" : "'\(path)'"
        if let field = required.first(where: { document[$0] == nil }) {
            return "\(place) is missing the required field '\(field)'"
        }
        if let minProperties, document.count < minProperties {
            return "\(place) must have at least \(minProperties) fields"
        }
        if let maxProperties, document.count > maxProperties {
            return "\(place) must have at most \(maxProperties) fields"
        }
        for (key, fieldValue) in document {
            let fieldPath = path.isEmpty ? key : "\(path).\(key)"
            if let property = properties[key] {
                if let problem = property.violation(of: fieldValue, at: fieldPath) { return problem }
                continue
            }
            switch additionalProperties {
            case .allowed(true): continue
            case .allowed(false):
                // `_id` is every document's own; a schema that does not list it still allows it.
                if path.isEmpty && key == "_id" { continue }
                return "\(place) has the field '\(key)', which its schema does not allow"
            case .schema(let schema):
                if let problem = schema.violation(of: fieldValue, at: fieldPath) { return problem }
            }
        }
        return nil
    }

    /// Whether `value` is of the BSON type `name` (`number` any numeric type, `mixed` anything, `uuid` binary
    /// subtype 4).
    private static func value(_ value: BSON, hasType name: String) -> Bool {
        switch name {
        case "mixed": return true
        case "number": return value.isNumber
        case "uuid":
            if case .binary(let binary) = value { return binary.subtype == 4 }
            return false
        default: return value.typeName == name
        }
    }
}

extension BSON {
    fileprivate var isNumber: Bool {
        switch self {
        case .double, .int32, .int64, .decimal128: true
        default: false
        }
    }
}
