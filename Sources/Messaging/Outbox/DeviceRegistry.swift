import Synchronization

/// The platform each registration token was registered with, so the outbox records the payload that
/// platform's app receives; a token registered without one gets the iOS and the Android view.
///
/// Changes go through `sink` first (the app keeps them in its store) and take effect once it returns.
///
/// ```swift
/// let devices = DeviceRegistry()
/// try await devices.register("token-a", platform: .ios)
/// devices.platform(of: "token-a") // .ios
/// ```
public final class DeviceRegistry: Sendable {
    /// One registration, for whoever keeps them: a nil platform forgets the token's.
    public struct Change: Sendable, Equatable {
        public var token: String
        public var platform: DevicePlatform?

        public init(token: String, platform: DevicePlatform?) {
            self.token = token
            self.platform = platform
        }
    }

    public typealias Sink = @Sendable (Change) async throws -> Void

    private let platforms: Mutex<[String: DevicePlatform]>
    private let sink: Sink

    /// - Parameters:
    ///   - platforms: platforms by token, as an earlier run left them.
    ///   - sink: receives each change before it takes effect; when it throws, nothing changes.
    public init(_ platforms: [String: DevicePlatform] = [:], sink: @escaping Sink = { _ in }) {
        self.platforms = Mutex(platforms)
        self.sink = sink
    }

    /// Records `token` as a device of `platform` (nil: of an unknown platform), replacing what it was.
    public func register(_ token: String, platform: DevicePlatform?) async throws {
        let change = Change(token: token, platform: platform)
        try await sink(change)
        platforms.withLock { $0[token] = platform }
    }

    /// The platform `token` was registered with; nil when unknown.
    public func platform(of token: String) -> DevicePlatform? {
        platforms.withLock { $0[token] }
    }

    /// Every token with a known platform.
    public var all: [String: DevicePlatform] { platforms.withLock { $0 } }
}
