/// A BSON value that configuration files cannot hold (binary, regex, decimal, …): only the types the
/// configuration readers produce can be written back.
package struct UnwritableValue: Error, Sendable, Equatable, CustomStringConvertible {
    package var typeName: String

    package init(typeName: String) {
        self.typeName = typeName
    }

    package var description: String { "a \(typeName) value cannot be written to a configuration file" }
}
