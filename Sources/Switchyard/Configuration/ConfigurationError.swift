/// A problem in a configuration file, printed as `file:line:col: message` (the form editors jump to).
public struct ConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    public var file: String
    public var location: SourceLocation?
    public var message: String

    public init(file: String, location: SourceLocation?, message: String) {
        self.file = file
        self.location = location
        self.message = message
    }

    public var description: String {
        if let location { return "\(file):\(location): \(message)" }
        return "\(file): \(message)"
    }
}
