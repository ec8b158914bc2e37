import Switchyard

extension FunctionContext.Values {
    /// The string value `name`; throws naming the value when it is missing or not a string.
    func requiredString(_ name: String) throws -> String {
        guard let value = get(name) else { throw BooksAppError("values.json has no value '\(name)'") }
        guard let string = value.stringValue, !string.isEmpty else {
            throw BooksAppError("value '\(name)' must be a non-empty string, not \(value.extendedJSON(mode: .relaxed))")
        }
        return string
    }

    /// The positive number value `name`; throws naming the value when it is missing or not a positive number.
    func requiredPositiveNumber(_ name: String) throws -> Double {
        guard let value = get(name) else { throw BooksAppError("values.json has no value '\(name)'") }
        guard let number = value.doubleValue, number > 0, number.isFinite else {
            throw BooksAppError("value '\(name)' must be a positive number, not \(value.extendedJSON(mode: .relaxed))")
        }
        return number
    }
}
