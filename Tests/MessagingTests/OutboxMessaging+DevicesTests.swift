import BSON
import Messaging
import Testing

/// Which platform views an outbox entry records, and the Android and web views.
@Suite struct OutboxMessagingDevicesTests {
    private static let sentTime = BSONDate(millisecondsSinceEpoch: 1_700_000_000_000)

    private func outbox(_ devices: [String: DevicePlatform] = [:], topics: TopicSubscriptions = TopicSubscriptions())
        -> OutboxMessaging
    {
        OutboxMessaging(
            project: "books-app", senderId: "1234567890", clock: { Self.sentTime }, topics: topics,
            devices: DeviceRegistry(devices))
    }

    @Test func eachReachedTokenGetsItsPlatformsViewAndUnknownOnesGetIOSAndAndroid() async throws {
        let topics = TopicSubscriptions(["books": ["phone", "pixel", "browser"]])
        let outbox = outbox(["phone": .ios, "pixel": .android, "browser": .web], topics: topics)
        _ = try await outbox.send(PushMessage(target: .token("phone"), notification: PushNotification(title: "t")))
        _ = try await outbox.send(PushMessage(target: .token("browser"), notification: PushNotification(title: "t")))
        _ = try await outbox.send(PushMessage(target: .token("unknown"), notification: PushNotification(title: "t")))
        _ = try await outbox.send(PushMessage(target: .topic("books"), notification: PushNotification(title: "t")))
        let entries = outbox.entries
        #expect(entries[0].ios != nil && entries[0].android == nil && entries[0].web == nil)
        #expect(entries[0].platforms == ["phone": .ios])
        #expect(entries[1].ios == nil && entries[1].android == nil && entries[1].web != nil)
        #expect(entries[2].ios != nil && entries[2].android != nil && entries[2].web == nil)
        #expect(entries[2].platforms(of: "unknown") == [.ios, .android])
        #expect(entries[3].ios != nil && entries[3].android != nil && entries[3].web != nil)
        #expect(entries[3].platforms(of: "pixel") == [.android])
    }

    @Test func aTopicNobodySubscribedToStillShowsWhatAPhoneWouldGet() async throws {
        let outbox = outbox()
        _ = try await outbox.send(PushMessage(target: .topic("books"), notification: PushNotification(title: "t")))
        let entry = try #require(outbox.entries.first)
        #expect(entry.reachedTokens.isEmpty)
        #expect(entry.ios?.messageId != nil && entry.android?.from == "/topics/books")
    }

    @Test func androidSeesWhatRemoteMessageExposes() async throws {
        var android = AndroidConfig(
            collapseKey: "book-1", ttl: "60s", data: ["only": "android"],
            notification: AndroidNotification(title: "Android title", channelId: "books"))
        android.notification?.bodyLocKey = "BOOK_BODY"
        let message = PushMessage(
            target: .topic("books"),
            notification: PushNotification(title: "t", body: "b", image: "https://x.test/i.png"),
            data: ["common": "1"], android: android)
        let outbox = outbox()
        let name = try await outbox.send(message)
        let view = try #require(outbox.entries.first?.android)
        var notification = AndroidDelivery.Notification(
            title: "Android title", body: "b", imageUrl: "https://x.test/i.png")
        notification.bodyLocKey = "BOOK_BODY"
        notification.channelId = "books"
        #expect(
            view
                == AndroidDelivery(
                    from: "/topics/books", messageId: String(name.split(separator: "/").last!), collapseKey: "book-1",
                    priority: "high", originalPriority: "high", ttl: 60, sentTime: 1_700_000_000_000,
                    notification: notification, data: ["only": "android"]))
        _ = try await outbox.send(PushMessage(target: .token("t"), data: ["x": "1"]))
        let data = try #require(outbox.entries.last?.android)
        #expect(
            data.notification == nil && data.priority == "normal" && data.ttl == 2_419_200 && data.from == "1234567890")
    }

    @Test func webSeesTheWebpushPayload() async throws {
        let message = PushMessage(
            target: .token("browser"), notification: PushNotification(title: "t", body: "b"), data: ["common": "1"],
            webpush: WebpushConfig(
                data: ["only": "web"], notification: ["body": "web body", "icon": "/icon.png"],
                fcmOptions: WebpushFCMOptions(link: "https://books.test/1")))
        let outbox = outbox(["browser": .web])
        _ = try await outbox.send(message)
        let web = try #require(outbox.entries.first?.web)
        #expect(web.notification == ["title": "t", "body": "web body", "icon": "/icon.png"])
        #expect(web.data == ["only": "web"])
        #expect(web.fcmOptions?.link == "https://books.test/1")
        #expect(web.from == "1234567890")
    }

    @Test func theViewsSurviveTheStoredDocument() async throws {
        let outbox = outbox(
            ["browser": .web, "phone": .ios], topics: TopicSubscriptions(["b": ["browser", "phone", "x"]]))
        _ = try await outbox.send(
            PushMessage(
                target: .topic("b"), notification: PushNotification(title: "t", body: "b"), data: ["k": "v"],
                apns: APNSConfig(
                    payload: ["aps": ["mutable-content": 1]], fcmOptions: APNSFCMOptions(image: "https://i"))))
        let entry = try #require(outbox.entries.first)
        #expect(entry.document["platforms"] == ["ios": ["phone"], "web": ["browser"]])
        #expect(try OutboxEntry(document: entry.document) == entry)
    }
}
