import Messaging

/// The `messaging:` section of `triggers.yaml`: what `context.services.messaging` sends through when
/// `switchyard serve --push live` delivers for real, and how the development FCM emulator behaves.
///
/// ```yaml
/// messaging:
///   transport: fcm                # fcm (default) or apns: the live transport
///   fcm:
///     serviceAccount: fcmServiceAccount   # the value (linked to a secret) holding the service-account JSON
///   apns:                         # required with transport: apns
///     teamId: ABCDE12345
///     keyId: KEY123ABCD
///     key: apnsKey                # the value (linked to a secret) holding the .p8 key's text
///     topic: com.example.books    # apns-topic: the app's bundle id
///     environment: production     # production (default) or sandbox
///     host: https://apns.test:8443  # instead of Apple's host for `environment` (a test server)
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
///
/// With `--push emulator` (the default) functions always send through FCM to the emulator, whatever `transport`
/// says: the emulator speaks FCM only.
package struct MessagingSettings: Sendable, Equatable {
    package enum Transport: String, Sendable, Equatable, CaseIterable {
        case fcm, apns
    }

    package var transport: Transport
    /// The value holding the FCM service account's JSON (an object, or its text).
    package var fcmServiceAccountValue: String
    /// Required when `transport` is `.apns`.
    package var apns: APNsSettings?
    package var emulator: FCMEmulatorSettings

    package static let defaultServiceAccountValue = "fcmServiceAccount"

    package init(
        transport: Transport = .fcm, fcmServiceAccountValue: String = MessagingSettings.defaultServiceAccountValue,
        apns: APNsSettings? = nil, emulator: FCMEmulatorSettings = FCMEmulatorSettings()
    ) {
        self.transport = transport
        self.fcmServiceAccountValue = fcmServiceAccountValue
        self.apns = apns
        self.emulator = emulator
    }
}

/// `messaging.apns` in `triggers.yaml`: how to reach APNs directly.
package struct APNsSettings: Sendable, Equatable {
    package enum Environment: String, Sendable, Equatable, CaseIterable {
        case production, sandbox
    }

    package var teamId: String
    package var keyId: String
    /// The value holding the `.p8` key's PEM text (link it to a secret).
    package var keyValue: String
    /// The default `apns-topic` (the app's bundle id).
    package var topic: String?
    package var environment: Environment
    /// Replaces Apple's host for `environment` (a test server).
    package var host: String?

    package init(
        teamId: String, keyId: String, keyValue: String, topic: String? = nil, environment: Environment = .production,
        host: String? = nil
    ) {
        self.teamId = teamId
        self.keyId = keyId
        self.keyValue = keyValue
        self.topic = topic
        self.environment = environment
        self.host = host
    }

    /// Where notifications go.
    package var baseURL: String {
        host ?? (environment == .sandbox ? APNsClient.Configuration.sandboxURL : APNsClient.Configuration.productionURL)
    }
}

/// `messaging.emulator` in `triggers.yaml`.
package struct FCMEmulatorSettings: Sendable, Equatable {
    /// The Firebase project id in message names and URLs; nil: the app id, else `switchyard-local`.
    package var project: String?
    package var faults: FaultSettings

    package init(project: String? = nil, faults: FaultSettings = FaultSettings()) {
        self.project = project
        self.faults = faults
    }
}
