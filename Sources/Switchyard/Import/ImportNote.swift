/// One part of an export the import left out, with why: the file (relative to the export) and a sentence.
public struct ImportNote: Sendable, Equatable, CustomStringConvertible {
    /// The file or folder in the export, relative to its root.
    public var path: String
    public var message: String

    public init(_ path: String, _ message: String) {
        self.path = path
        self.message = message
    }

    public var description: String { "\(path): \(message)" }
}
