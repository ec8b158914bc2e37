/// One part of an export the import left out, with why: the file (relative to the export) and a sentence.
package struct ImportNote: Sendable, Equatable, CustomStringConvertible {
    /// The file or folder in the export, relative to its root.
    package var path: String
    package var message: String

    package init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    package var description: String { "\(path): \(message)" }
}
