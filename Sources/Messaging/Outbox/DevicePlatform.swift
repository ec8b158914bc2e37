/// The kind of client app a registration token belongs to: it decides which payload the device gets (APNs'
/// for iOS, `RemoteMessage` for Android, the web push payload for browsers).
public enum DevicePlatform: String, Sendable, Hashable, CaseIterable {
    case ios
    case android
    case web
}
