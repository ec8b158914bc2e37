/// An FCM HTTP v1 message (`projects.messages`): exactly one target, plus notification, data and
/// per-platform overrides.
public struct PushMessage: Sendable, Equatable {
    public enum Target: Sendable, Equatable {
        case token(String)
        case topic(String)
        case condition(String)
    }

    public var target: Target
    public var notification: PushNotification?
    public var data: [String: String]

    public init(target: Target, notification: PushNotification? = nil, data: [String: String] = [:]) {
        self.target = target
        self.notification = notification
        self.data = data
    }
}

/// The basic notification shown on every platform.
public struct PushNotification: Sendable, Equatable {
    public var title: String?
    public var body: String?
    public var image: String?

    public init(title: String? = nil, body: String? = nil, image: String? = nil) {
        self.title = title
        self.body = body
        self.image = image
    }
}

/// One message sent to many registration tokens.
public struct MulticastMessage: Sendable, Equatable {
    public var tokens: [String]
    public var notification: PushNotification?
    public var data: [String: String]

    public init(tokens: [String], notification: PushNotification? = nil, data: [String: String] = [:]) {
        self.tokens = tokens
        self.notification = notification
        self.data = data
    }
}

/// Per-token results of a multicast, in the order of its tokens.
public struct BatchResponse: Sendable, Equatable {
    public struct Result: Sendable, Equatable {
        public var token: String
        /// The message name on success.
        public var messageName: String?
        /// The error on failure.
        public var error: PushError?

        public init(token: String, messageName: String? = nil, error: PushError? = nil) {
            self.token = token
            self.messageName = messageName
            self.error = error
        }
    }

    public var results: [Result]

    public init(results: [Result]) { self.results = results }

    public var successCount: Int { results.count { $0.error == nil } }
    public var failureCount: Int { results.count { $0.error != nil } }
}

/// Why a push message was not delivered. A struct wrapping a code, so new codes don't break users.
public struct PushError: Error, Sendable, Equatable, CustomStringConvertible {
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
