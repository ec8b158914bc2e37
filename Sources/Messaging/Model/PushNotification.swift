import BSON

/// The basic notification shown on every platform (`Notification` in the FCM v1 reference).
public struct PushNotification: Sendable, Equatable {
    public var title: String?
    public var body: String?
    /// An HTTPS URL of an image the device downloads and shows.
    public var image: String?

    public init(title: String? = nil, body: String? = nil, image: String? = nil) {
        self.title = title
        self.body = body
        self.image = image
    }
}

extension PushNotification {
    static let fieldNames = ["title", "body", "image"]

    /// `{"title","body","image"}`, in that order, unset fields left out.
    var fcmDocument: BSONDocument {
        var document = BSONDocument()
        document.appendIfPresent("title", title)
        document.appendIfPresent("body", body)
        document.appendIfPresent("image", image)
        return document
    }

    init(fcm value: BSON, path: String) throws(PushError) {
        let reader = try FCMObjectReader(value, path: path, fields: Self.fieldNames)
        self.init(title: try reader.string("title"), body: try reader.string("body"), image: try reader.string("image"))
    }
}
