/// A BSON value that configuration files cannot hold (binary, regex, decimal, …): only the types the
/// configuration readers produce can be written back.
public struct UnwritableValue: Error, Sendable, Equatable, CustomStringConvertible {
    public var typeName: String

    public init(typeName: String) {
        self.typeName = typeName
    }

    public var description: String { "a \(typeName) value cannot be written to a configuration file" }
}
