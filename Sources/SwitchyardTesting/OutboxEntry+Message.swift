import BSON
import Messaging

extension OutboxEntry {
    /// The message as FCM received it, read back from `request`; nil if the request is not a send request
    /// (never, for entries the outbox recorded).
    public var message: PushMessage? {
        try? FCMSendRequest(document: request).message
    }

    /// The notification title a device shows (Android's override, else the common one); nil when undelivered.
    public var title: String? { payload?.value(atPath: "notification.title")?.stringValue }

    /// The notification body a device shows; nil when undelivered.
    public var body: String? { payload?.value(atPath: "notification.body")?.stringValue }

    /// The data a device receives; empty when undelivered.
    public var data: [String: String] {
        guard let document = payload?["data"]?.documentValue else { return [:] }
        var data: [String: String] = [:]
        for (key, value) in document { if let string = value.stringValue { data[key] = string } }
        return data
    }
}
