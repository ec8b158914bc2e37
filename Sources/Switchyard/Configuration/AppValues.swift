import BSON

/// The app's values for one environment, with secrets resolved. Printing it (or dumping it) shows secret
/// values as `<secret>`.
package struct AppValues: Sendable, Equatable, CustomStringConvertible {
    package enum Value: Sendable, Equatable {
        case plain(BSON)
        case secret(Secret)
    }

    /// Names in declaration order (`values.json` first, then names only the environment file adds).
    package private(set) var names: [String] = []
    private var storage: [String: Value] = [:]

    package init() {}

    package init(_ pairs: [(String, Value)]) {
        for (name, value) in pairs { self[name] = value }
    }

    package subscript(name: String) -> Value? {
        get { storage[name] }
        set {
            if storage[name] == nil, newValue != nil { names.append(name) }
            if newValue == nil { names.removeAll { $0 == name } }
            storage[name] = newValue
        }
    }

    package var description: String {
        let entries = names.map { name -> String in
            switch storage[name] {
            case .plain(let value): "\(name): \(value)"
            case .secret: "\(name): <secret>"
            case nil: "\(name): nil"
            }
        }
        return "[" + entries.joined(separator: ", ") + "]"
    }
}
