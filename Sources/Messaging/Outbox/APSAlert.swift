import BSON

/// The `alert` of an `aps` dictionary: what iOS shows. FCM fills `title` and `body` from the message's
/// `notification` unless `apns.payload.aps.alert` sets them.
public struct APSAlert: Sendable, Equatable {
    public var title: String?
    public var subtitle: String?
    public var body: String?
    /// `title-loc-key`: the key of a localized title in the app's `Localizable.strings`.
    public var titleLocKey: String?
    /// `title-loc-args`: the values for `titleLocKey`'s format specifiers.
    public var titleLocArgs: [String]?
    /// `loc-key`: the key of a localized body.
    public var locKey: String?
    /// `loc-args`: the values for `locKey`'s format specifiers.
    public var locArgs: [String]?
    /// `launch-image`.
    public var launchImage: String?

    public init(
        title: String? = nil, subtitle: String? = nil, body: String? = nil, titleLocKey: String? = nil,
        titleLocArgs: [String]? = nil, locKey: String? = nil, locArgs: [String]? = nil, launchImage: String? = nil
    ) {
        self.title = title
        self.subtitle = subtitle
        self.body = body
        self.titleLocKey = titleLocKey
        self.titleLocArgs = titleLocArgs
        self.locKey = locKey
        self.locArgs = locArgs
        self.launchImage = launchImage
    }

    /// Reads an `alert` as APNs does: a string is the body, a dictionary holds the fields under APNs' names.
    public init(apns value: BSON) {
        if case .string(let body) = value {
            self.init(body: body)
            return
        }
        let alert = value.documentValue ?? [:]
        self.init(
            title: alert["title"]?.stringValue, subtitle: alert["subtitle"]?.stringValue,
            body: alert["body"]?.stringValue, titleLocKey: alert["title-loc-key"]?.stringValue,
            titleLocArgs: alert["title-loc-args"]?.stringArray, locKey: alert["loc-key"]?.stringValue,
            locArgs: alert["loc-args"]?.stringArray, launchImage: alert["launch-image"]?.stringValue)
    }
}

extension BSON {
    /// The strings of an array value; nil when it is not an array.
    var stringArray: [String]? { arrayValue?.compactMap(\.stringValue) }
}
