/// A test helper was used in a way the app under test cannot serve (an unknown trigger, an event of the wrong
/// kind, …).
public struct TestAppError: Error, Sendable, Equatable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
