/// Why an import stopped: the file, and where in it when a line is known (`file:line:column: message`).
/// A failed import changed nothing: every collection is replaced in the same transaction.
package struct DataImportError: Error, Sendable, Equatable, CustomStringConvertible {
    package var file: String
    package var line: Int?
    package var column: Int?
    package var message: String

    package init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    package var description: String {
        var text = file
        if let line { text += ":\(line)" + (column.map { ":\($0)" } ?? "") }
        text += ": \(message)"
        return text
    }
}
