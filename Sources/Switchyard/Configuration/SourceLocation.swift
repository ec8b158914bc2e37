/// A 1-based line and column in a configuration file, for `file:line:col: message` diagnostics.
package struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    package var description: String { "\(line):\(column)" }
}
