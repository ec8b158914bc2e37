import BSON
import Messaging
import Testing

/// What an iOS app's `userInfo` holds for a message, as FCM's delivery through APNs builds it.
@Suite struct IOSDeliveryTests {
    private static let sentTime = BSONDate(millisecondsSinceEpoch: 1_700_000_000_000)

    private func delivered(_ message: PushMessage) async throws -> IOSDelivery {
        let outbox = OutboxMessaging(project: "books-app", senderId: "1234567890", clock: { Self.sentTime })
        _ = try await outbox.send(message)
        return try #require(outbox.entries.last?.ios)
    }

    /// The tutorial's "New book added" message with a cover.
    @Test func theTutorialsImageMessageWakesTheServiceExtensionWithTheImage() async throws {
        let message = PushMessage(
            target: .topic("books"),
            notification: PushNotification(title: "New book added", body: "Dune has been added to the list"),
            apns: APNSConfig(
                payload: ["aps": ["mutable-content": 1]], fcmOptions: APNSFCMOptions(image: "https://x.test/d.png")))
        let ios = try await delivered(message)
        #expect(ios.aps.alert == APSAlert(title: "New book added", body: "Dune has been added to the list"))
        #expect(ios.aps.mutableContent == 1)
        #expect(ios.image == "https://x.test/d.png")
        #expect(ios.userInfo["fcm_options"] == ["image": "https://x.test/d.png"])
        let messageId = try #require(ios.messageId)
        #expect(UInt64(messageId) != nil)
        #expect(ios.userInfo["google.c.sender.id"] == "1234567890")
        #expect(ios.userInfo["google.c.a.e"] == "1")
        #expect(ios.headers["apns-push-type"] == "alert")
        #expect(ios.headers["apns-priority"] == "10")
        #expect(ios.headers["apns-expiration"] == String(1_700_000_000 + 30 * 24 * 3600))
    }

    @Test func dataKeysSitAtTheTopLevelAndThePayloadsAlertWins() async throws {
        let message = PushMessage(
            target: .token("device-1"), notification: PushNotification(title: "Common", body: "Common body"),
            data: ["bookId": "42"],
            apns: APNSConfig(
                headers: ["apns-collapse-id": "book-42", "apns-priority": "5"],
                payload: [
                    "aps": [
                        "alert": ["title": "iOS title", "title-loc-key": "BOOK_CHANGED", "loc-args": ["Dune"]],
                        "badge": 3, "sound": "default", "category": "BOOK", "thread-id": "books",
                        "content-available": 1,
                    ],
                    "deepLink": "books://42",
                ]))
        let ios = try await delivered(message)
        #expect(
            ios.aps
                == APSDictionary(
                    alert: APSAlert(
                        title: "iOS title", body: "Common body", titleLocKey: "BOOK_CHANGED", locArgs: ["Dune"]),
                    badge: 3, sound: "default", category: "BOOK", threadId: "books", contentAvailable: 1))
        #expect(ios.userInfo["bookId"] == "42")
        #expect(ios.userInfo["deepLink"] == "books://42")
        #expect(ios.userInfo["fcm_options"] == nil)
        #expect(ios.headers["apns-collapse-id"] == "book-42")
        #expect(ios.headers["apns-priority"] == "5")
    }

    @Test func aDataOnlyMessageWithContentAvailableIsABackgroundPush() async throws {
        let message = PushMessage(
            target: .token("device-1"), data: ["sync": "1"],
            apns: APNSConfig(payload: ["aps": ["content-available": 1]]))
        let ios = try await delivered(message)
        #expect(ios.aps.alert == nil)
        #expect(ios.userInfo["google.c.a.e"] == nil)
        #expect(ios.messageId != nil)
        #expect(ios.headers["apns-push-type"] == "background")
    }

    @Test func theCommonImageGoesToFCMOptions() async throws {
        let message = PushMessage(
            target: .token("device-1"), notification: PushNotification(title: "t", image: "https://x.test/c.png"))
        #expect(try await delivered(message).image == "https://x.test/c.png")
    }
}
