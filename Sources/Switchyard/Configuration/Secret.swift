/// A secret's value, kept out of every printout: `description`, `debugDescription`, `dump`, string
/// interpolation and mirrors all show `<secret>`. Read the value only where it is used, with `exposedValue`.
package struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret's name, which is safe to print.
    package let name: String
    private let value: String

    package init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The secret itself. Never log it.
    package var exposedValue: String { value }

    package var description: String { "<secret>" }
    package var debugDescription: String { "<secret>" }
    package var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
