/// A control call the trigger runtime refused, or a redelivery that failed again.
package struct TriggerRuntimeError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Code: RawRepresentable, Sendable, Hashable {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        package static let unknownTrigger = Code(rawValue: "unknownTrigger")
        package static let duplicateTrigger = Code(rawValue: "duplicateTrigger")
        package static let notRunning = Code(rawValue: "notRunning")
        package static let invalidState = Code(rawValue: "invalidState")
        package static let deadLetterNotFound = Code(rawValue: "deadLetterNotFound")
        package static let redeliveryFailed = Code(rawValue: "redeliveryFailed")
        /// Another node holds the trigger's lease: only that node suspends or resumes it.
        package static let heldByAnotherNode = Code(rawValue: "heldByAnotherNode")
    }

    package var code: Code
    package var message: String

    package init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    package var description: String { message }

    static func unknownTrigger(_ name: String) -> Self {
        Self(code: .unknownTrigger, message: "no trigger named '\(name)' is defined")
    }
}
