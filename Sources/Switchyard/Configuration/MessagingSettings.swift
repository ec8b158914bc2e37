import Messaging

/// The `messaging:` section of `triggers.yaml`: how the development FCM emulator behaves.
///
/// ```yaml
/// messaging:
///   emulator:
///     project: books-app          # the Firebase project it answers for (default: the appId)
///     faults:                     # FaultSettings, injected from the start
///       unregisteredTokens: [stale-token]
///       unavailable: 3            # the next 3 sends answer 503
///       internalErrors: 0
///       quotaExceeded: 2          # the next 2 sends answer 429
///       rateLimit: 100            # more than 100 sends a second answer 429
///       retryAfter: 2s            # Retry-After of the 429s (whole seconds, rounded up)
///       latency: 250ms
///       connectionResets: 1       # the next HTTP send loses its connection
/// ```
public struct MessagingSettings: Sendable, Equatable {
    public var emulator: FCMEmulatorSettings

    public init(emulator: FCMEmulatorSettings = FCMEmulatorSettings()) {
        self.emulator = emulator
    }
}

/// `messaging.emulator` in `triggers.yaml`.
public struct FCMEmulatorSettings: Sendable, Equatable {
    /// The Firebase project id in message names and URLs; nil: the app id, else `switchyard-local`.
    public var project: String?
    public var faults: FaultSettings

    public init(project: String? = nil, faults: FaultSettings = FaultSettings()) {
        self.project = project
        self.faults = faults
    }
}
