import Synchronization

/// The platform each registration token was registered with, so the outbox records the payload that
/// platform's app receives; a token registered without one gets the iOS and the Android view.
///
/// Changes go through `sink` first (the app keeps them in its store) and take effect once it returns.
///
/// It keeps at most `capacity` tokens (10,000 by default), so a client registering devices without end cannot
/// grow it: registering one more forgets the least recently registered (through `sink` too), which then gets
/// both views like any token of unknown platform.
///
/// ```swift
/// let devices = DeviceRegistry()
/// try await devices.register("token-a", platform: .ios)
/// devices.platform(of: "token-a") // .ios
/// ```
package final class DeviceRegistry: Sendable {
    /// One registration, for whoever keeps them: a nil platform forgets the token's.
    package struct Change: Sendable, Equatable {
        package var token: String
        package var platform: DevicePlatform?

        package init(token: String, platform: DevicePlatform?) {
            self.token = token
            self.platform = platform
        }
    }

    package typealias Sink = @Sendable (Change) async throws -> Void

    package static let defaultCapacity = 10_000

    /// The most tokens kept.
    package let capacity: Int
    private let state: Mutex<State>
    private let sink: Sink

    private struct State {
        var platforms: [String: Registration] = [:]
        var nextSerial: UInt64 = 0

        /// Forgets the least recently registered tokens until `capacity` are left, and returns them. One
        /// registration adds at most one, so a scan for the oldest costs less than keeping an order.
        mutating func trim(to capacity: Int) -> [String] {
            var forgotten: [String] = []
            while platforms.count > capacity, let oldest = platforms.min(by: { $0.value.serial < $1.value.serial }) {
                platforms[oldest.key] = nil
                forgotten.append(oldest.key)
            }
            return forgotten
        }
    }

    private struct Registration {
        var platform: DevicePlatform
        /// The order of registration, for forgetting the oldest.
        var serial: UInt64
    }

    /// - Parameters:
    ///   - platforms: platforms by token, as an earlier run left them (beyond `capacity`, an arbitrary few).
    ///   - capacity: the most tokens kept (at least 1).
    ///   - sink: receives each change before it takes effect; when it throws, nothing changes.
    package init(
        _ platforms: [String: DevicePlatform] = [:], capacity: Int = DeviceRegistry.defaultCapacity,
        sink: @escaping Sink = { _ in }
    ) {
        self.capacity = max(1, capacity)
        var state = State()
        for (token, platform) in platforms.prefix(self.capacity) {
            state.nextSerial += 1
            state.platforms[token] = Registration(platform: platform, serial: state.nextSerial)
        }
        self.state = Mutex(state)
        self.sink = sink
    }

    /// Records `token` as a device of `platform` (nil: of an unknown platform), replacing what it was; beyond
    /// `capacity`, forgets the least recently registered token.
    package func register(_ token: String, platform: DevicePlatform?) async throws {
        try await sink(Change(token: token, platform: platform))
        let forgotten = state.withLock { state -> [String] in
            state.nextSerial += 1
            state.platforms[token] = platform.map { Registration(platform: $0, serial: state.nextSerial) }
            return state.trim(to: capacity)
        }
        // The store forgets them too, so the next run loads what this one keeps; a failure leaves a stale
        // document that the next run's load trims again.
        for token in forgotten { try? await sink(Change(token: token, platform: nil)) }
    }

    /// The platform `token` was registered with; nil when unknown.
    package func platform(of token: String) -> DevicePlatform? {
        state.withLock { $0.platforms[token]?.platform }
    }

    /// Every token with a known platform.
    package var all: [String: DevicePlatform] { state.withLock { $0.platforms.mapValues(\.platform) } }
}
