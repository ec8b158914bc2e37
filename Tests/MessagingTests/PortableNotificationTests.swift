import BSON
import Messaging
import Testing

@Suite struct PortableNotificationTests {
    private func json(_ message: PushMessage) -> String {
        String(decoding: message.sendRequestJSON(), as: UTF8.self)
    }

    @Test func everythingSet() throws {
        let message = PushMessage.portable(
            target: .topic("books"), title: "New book", body: "Dune was added", image: "https://example.com/dune.png",
            type: "bookAdded", collapseId: "book-42", badge: 3, sound: "default", data: ["bookId": "42"])
        #expect(
            json(message)
                == #"{"message":{"data":{"bookId":"42","type":"bookAdded"},"notification":{"title":"New book","body":"Dune was added"},"android":{"collapse_key":"book-42","notification":{"sound":"default","image":"https://example.com/dune.png"}},"apns":{"headers":{"apns-collapse-id":"book-42"},"payload":{"aps":{"thread-id":"book-42","badge":3,"sound":"default","mutable-content":1}},"fcm_options":{"image":"https://example.com/dune.png"}},"topic":"books"}}"#
        )
        try message.validate()
    }

    @Test func titleAndBodyOnlyLeaveThePlatformsOut() {
        let message = PushMessage.portable(target: .token("device"), title: "Hi", body: "There")
        #expect(json(message) == #"{"message":{"notification":{"title":"Hi","body":"There"},"token":"device"}}"#)
    }

    @Test func imageAloneWakesTheServiceExtension() {
        let message = PushMessage.portable(target: .token("d"), title: "T", body: "B", image: "https://x.test/i.png")
        #expect(
            json(message)
                == #"{"message":{"notification":{"title":"T","body":"B"},"android":{"notification":{"image":"https://x.test/i.png"}},"apns":{"payload":{"aps":{"mutable-content":1}},"fcm_options":{"image":"https://x.test/i.png"}},"token":"d"}}"#
        )
    }

    @Test func typeWinsOverADataTypeAndCollapseIdAloneSkipsAndroidNotification() {
        let message = PushMessage.portable(
            target: .token("d"), title: "T", body: "B", type: "favourite", collapseId: "c", data: ["type": "other"])
        #expect(
            json(message)
                == #"{"message":{"data":{"type":"favourite"},"notification":{"title":"T","body":"B"},"android":{"collapse_key":"c"},"apns":{"headers":{"apns-collapse-id":"c"},"payload":{"aps":{"thread-id":"c"}}},"token":"d"}}"#
        )
    }

    @Test func multicastSharesTheSameParts() throws {
        let multicast = MulticastMessage.portable(
            tokens: ["a", "b"], title: "T", body: "B", badge: 1, sound: "ping.caf")
        try multicast.validate()
        #expect(
            json(multicast.message(to: "b"))
                == #"{"message":{"notification":{"title":"T","body":"B"},"android":{"notification":{"sound":"ping.caf"}},"apns":{"payload":{"aps":{"badge":1,"sound":"ping.caf"}}},"token":"b"}}"#
        )
        #expect(
            multicast.message(to: "a")
                == PortableNotification(title: "T", body: "B", badge: 1, sound: "ping.caf").message(to: .token("a")))
    }
}
