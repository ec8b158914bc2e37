/// A problem in a configuration file, printed as `file:line:col: message` (the form editors jump to).
/// Notes point at related places (the first definition of a duplicate name) and print on their own lines.
package struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    package var file: String
    package var location: SourceLocation?
    package var message: String
    package var notes: [Note]

    /// A related place, printed as `file:line:col: note: message` after the error it belongs to.
    package struct Note: Sendable, Equatable, CustomStringConvertible {
        package var file: String
        package var location: SourceLocation?
        package var message: String

        package init(file: String, location: SourceLocation?, message: String) {
            self.file = file
            self.location = location
            self.message = message
        }

        package var description: String {
            if let location { return "\(file):\(location): note: \(message)" }
            return "\(file): note: \(message)"
        }
    }

    package init(file: String, location: SourceLocation?, message: String, notes: [Note] = []) {
        self.file = file
        self.location = location
        self.message = message
        self.notes = notes
    }

    package var description: String {
        let head = location.map { "\(file):\($0): \(message)" } ?? "\(file): \(message)"
        return ([head] + notes.map(\.description)).joined(separator: "\n")
    }
}
