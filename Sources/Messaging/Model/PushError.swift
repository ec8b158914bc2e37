/// Why a push message was not delivered. A struct wrapping a code, so new codes don't break users.
public struct PushError: Error, Sendable, Equatable, CustomStringConvertible {
    /// FCM's error codes (`FcmErrorCode` and the canonical codes it answers with).
    public struct Code: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let unregistered = Code(rawValue: "UNREGISTERED")
        public static let invalidArgument = Code(rawValue: "INVALID_ARGUMENT")
        public static let senderIdMismatch = Code(rawValue: "SENDER_ID_MISMATCH")
        public static let quotaExceeded = Code(rawValue: "QUOTA_EXCEEDED")
        public static let unavailable = Code(rawValue: "UNAVAILABLE")
        public static let `internal` = Code(rawValue: "INTERNAL")
        public static let thirdPartyAuthError = Code(rawValue: "THIRD_PARTY_AUTH_ERROR")
        public static let transport = Code(rawValue: "TRANSPORT")
    }

    public var code: Code
    public var message: String

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
