import Foundation

/// Why APNs did not take a notification: its `reason`, the HTTP status, and for `Unregistered` since when the
/// token has been invalid. A struct wrapping a reason, so new reasons don't break users.
package struct APNsError: Error, Sendable, Equatable, CustomStringConvertible {
    package struct Reason: RawRepresentable, Sendable, Hashable {
        package var rawValue: String
        package init(rawValue: String) { self.rawValue = rawValue }

        package static let badDeviceToken = Reason(rawValue: "BadDeviceToken")
        package static let unregistered = Reason(rawValue: "Unregistered")
        package static let deviceTokenNotForTopic = Reason(rawValue: "DeviceTokenNotForTopic")
        package static let expiredProviderToken = Reason(rawValue: "ExpiredProviderToken")
        package static let invalidProviderToken = Reason(rawValue: "InvalidProviderToken")
        package static let tooManyRequests = Reason(rawValue: "TooManyRequests")
        package static let internalServerError = Reason(rawValue: "InternalServerError")
        package static let serviceUnavailable = Reason(rawValue: "ServiceUnavailable")
        package static let payloadTooLarge = Reason(rawValue: "PayloadTooLarge")
        /// No answer: the connection failed or timed out.
        package static let transport = Reason(rawValue: "Transport")
    }

    package var reason: Reason
    /// The HTTP status; nil when no answer came.
    package var status: Int?
    /// For `Unregistered` (410): when APNs last knew the token to be invalid.
    package var timestamp: Date?
    /// The notification's `apns-id`.
    package var apnsId: String?
    package var message: String

    package init(reason: Reason, status: Int?, timestamp: Date? = nil, apnsId: String? = nil, message: String) {
        self.reason = reason
        self.status = status
        self.timestamp = timestamp
        self.apnsId = apnsId
        self.message = message
    }

    package var description: String { "\(reason.rawValue): \(message)" }

    /// The same failure in FCM's terms, for `PushMessaging` callers: a bad or unregistered token invalidates it
    /// (`PushError.invalidatesToken`), throttling is `QUOTA_EXCEEDED`, credential trouble `THIRD_PARTY_AUTH_ERROR`.
    package var pushError: PushError {
        let code: PushError.Code
        var field: String?
        switch reason {
        case .unregistered: code = .unregistered
        case .badDeviceToken:
            code = .invalidArgument
            field = "message.token"
        case .tooManyRequests: code = .quotaExceeded
        case .internalServerError: code = .internal
        case .serviceUnavailable: code = .unavailable
        case .transport: code = .transport
        case _ where status == 403: code = .thirdPartyAuthError
        case _ where status == 503: code = .unavailable
        default: code = .invalidArgument
        }
        return PushError(code: code, message: description, httpStatus: status, field: field)
    }

    /// 429, 500, 503 and transport failures pass; the rest are about the request.
    var isRetryable: Bool { reason == .transport || status == 429 || status == 500 || status == 503 }
}
