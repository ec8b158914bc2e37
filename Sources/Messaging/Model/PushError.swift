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
        /// The credentials were refused or could not be obtained (HTTP 401, the OAuth token endpoint).
        public static let unauthenticated = Code(rawValue: "UNAUTHENTICATED")
        /// The credentials lack a permission (HTTP 403 without an FCM error code).
        public static let permissionDenied = Code(rawValue: "PERMISSION_DENIED")
        /// The project or resource does not exist (HTTP 404 without an FCM error code).
        public static let notFound = Code(rawValue: "NOT_FOUND")
        /// An answer no other code describes.
        public static let unknown = Code(rawValue: "UNKNOWN")
    }

    public var code: Code
    public var message: String
    /// The HTTP status of the answer that reported the error; nil when none came (transport, validation).
    public var httpStatus: Int?
    /// The request field the error is about, from FCM's `google.rpc.BadRequest` details (`message.token`).
    public var field: String?

    public init(code: Code, message: String, httpStatus: Int? = nil, field: String? = nil) {
        self.code = code
        self.message = message
        self.httpStatus = httpStatus
        self.field = field
    }

    /// Whether the registration token itself is dead, so the app should delete it: `UNREGISTERED` (the app was
    /// uninstalled or the token expired), or `INVALID_ARGUMENT` about the token or FID field (it was never one).
    public var invalidatesToken: Bool {
        switch code {
        case .unregistered: true
        case .invalidArgument:
            field == "message.token" || field == "message.fid"
                || message.contains("not a valid FCM registration token")
        default: false
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
