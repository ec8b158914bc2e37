/// A control call the trigger runtime refused, or a redelivery that failed again.
public struct TriggerRuntimeError: Error, Sendable, Equatable, CustomStringConvertible {
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let unknownTrigger = Code(rawValue: "unknownTrigger")
        public static let duplicateTrigger = Code(rawValue: "duplicateTrigger")
        public static let notRunning = Code(rawValue: "notRunning")
        public static let invalidState = Code(rawValue: "invalidState")
        public static let deadLetterNotFound = Code(rawValue: "deadLetterNotFound")
        public static let redeliveryFailed = Code(rawValue: "redeliveryFailed")
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    static func unknownTrigger(_ name: String) -> Self {
        Self(code: .unknownTrigger, message: "no trigger named '\(name)' is defined")
    }
}
