import DocumentStore

/// Why an import stopped: the file, and where in it when a line is known (`file:line:column: message`).
/// Collections imported before a failure stay imported (each is its own transaction); `committed` names them.
public struct DataImportError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var line: Int?
    public var column: Int?
    public var message: String
    /// Collections whose import committed before the failure.
    public var committed: [Namespace] = []

    public init(file: String, line: Int? = nil, column: Int? = nil, message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.message = message
    }

    public var description: String {
        var text = file
        if let line { text += ":\(line)" + (column.map { ":\($0)" } ?? "") }
        text += ": \(message)"
        if !committed.isEmpty {
            text += "\nnote: imported before the error: \(committed.map(\.description).joined(separator: ", "))"
        }
        return text
    }
}
