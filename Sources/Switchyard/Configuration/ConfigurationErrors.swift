/// Every problem found in an app's configuration, sorted by file and position, so one run shows them all.
/// The description prints one `file:line:col: message` per line (notes on the lines after their error).
package struct ConfigurationErrors: Error, Sendable, Equatable, CustomStringConvertible {
    package private(set) var errors: [ConfigurationError]

    package init(_ errors: [ConfigurationError]) {
        self.errors = errors.sorted(by: Self.precedes)
    }

    package var description: String {
        errors.map(\.description).joined(separator: "\n")
    }

    /// File name first, then line and column; errors without a position come first in their file.
    static func precedes(_ a: ConfigurationError, _ b: ConfigurationError) -> Bool {
        if a.file != b.file { return a.file < b.file }
        let left = a.location.map { ($0.line, $0.column) } ?? (0, 0)
        let right = b.location.map { ($0.line, $0.column) } ?? (0, 0)
        return left < right
    }
}
