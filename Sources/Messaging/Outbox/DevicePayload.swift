import BSON

/// Builds what the app on a device sees for a delivered message (the shape is documented on
/// `OutboxEntry.payload`).
enum DevicePayload {
    static func document(for message: PushMessage, messageId: String, senderId: String) -> BSONDocument {
        var payload: BSONDocument = ["messageId": .string(messageId)]
        if case .topic = message.target {
            payload.append("from", .string("/topics/\(message.target.value)"))
        } else {
            payload.append("from", .string(senderId))
        }
        if let collapseKey = message.android?.collapseKey { payload.append("collapseKey", .string(collapseKey)) }
        let base = message.notification
        let android = message.android?.notification
        var notification = BSONDocument()
        notification.appendIfPresent("title", android?.title ?? base?.title)
        notification.appendIfPresent("body", android?.body ?? base?.body)
        notification.appendIfPresent("image", android?.image ?? base?.image)
        notification.appendIfPresent("icon", android?.icon)
        notification.appendIfPresent("color", android?.color)
        notification.appendIfPresent("sound", android?.sound)
        notification.appendIfPresent("tag", android?.tag)
        notification.appendIfPresent("clickAction", android?.clickAction)
        notification.appendIfPresent("channelId", android?.channelId)
        if !notification.isEmpty { payload.append("notification", .document(notification)) }
        payload.append("data", .document(BSONDocument.sortedMap(message.android?.data ?? message.data)))
        return payload
    }
}
