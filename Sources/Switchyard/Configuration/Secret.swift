/// A secret's value, kept out of every printout: `description`, `debugDescription`, `dump`, string
/// interpolation and mirrors all show `<secret>`. Read the value only where it is used, with `exposedValue`.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret's name, which is safe to print.
    public let name: String
    private let value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The secret itself. Never log it.
    public var exposedValue: String { value }

    public var description: String { "<secret>" }
    public var debugDescription: String { "<secret>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
