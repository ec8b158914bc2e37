import BSON

/// One entry of `values.json` or an environment file as written: a plain JSON value, or the name of a
/// secret to look up when the configuration is loaded.
///
/// In JSON, `{"secret": "name"}` refers to a secret. App Services' own form is accepted as well:
/// `{"value": "name", "from_secret": true}` refers to a secret and `{"value": X, "from_secret": false}` is the
/// plain value X (which also lets a plain value be an object that looks like a secret reference).
package enum ValueDefinition: Sendable, Equatable {
    case plain(BSON)
    case secret(name: String)
}

/// Named values in file order, as `values.json` and `environments/<name>.json` declare them.
package struct ValueDefinitions: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var name: String
        package var value: ValueDefinition

        package init(name: String, value: ValueDefinition) {
            self.name = name
            self.value = value
        }
    }

    package var entries: [Entry]

    package init(_ entries: [Entry] = []) {
        self.entries = entries
    }

    package subscript(name: String) -> ValueDefinition? {
        entries.first { $0.name == name }?.value
    }
}
