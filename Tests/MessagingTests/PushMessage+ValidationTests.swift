import BSON
import Messaging
import Testing

@Suite struct PushMessageValidationTests {
    /// The validation message for `message`, or nil when it is valid.
    private func failure(_ message: PushMessage) -> String? {
        do {
            try message.validate()
            return nil
        } catch {
            #expect(error.code == .invalidArgument)
            return error.message
        }
    }

    private let token = PushMessage.Target.token("device")

    @Test func targets() {
        #expect(
            failure(PushMessage(target: .token("")))
                == "Invalid value at 'message.token': the registration token is empty")
        #expect(failure(PushMessage(target: .topic("books"))) == nil)
        #expect(failure(PushMessage(target: .topic("/topics/books-2_x.y~z%20"))) == nil)
        #expect(
            failure(PushMessage(target: .topic("book club")))?.hasPrefix(
                "Invalid value at 'message.topic': \"book club\" is not a valid topic name") == true)
        #expect(failure(PushMessage(target: .topic("/topics/"))) != nil)
        #expect(failure(PushMessage(target: .condition("'a' in topics && !('b' in topics)"))) == nil)
        #expect(
            failure(PushMessage(target: .condition("'a' in topics &&")))
                == "Invalid condition at 'message.condition', character 17: expected a topic term, '(' or '!'")
    }

    @Test(arguments: ["from", "message_type", "google", "google.c.a.e", "gcm.notification.title", "gcmx", ""])
    func reservedDataKeysAreRefused(key: String) {
        #expect(failure(PushMessage(target: token, data: [key: "x"])) != nil)
        #expect(
            failure(PushMessage(target: token, android: AndroidConfig(data: [key: "x"])))?.contains(
                "message.android.data") == true)
        #expect(
            failure(PushMessage(target: token, webpush: WebpushConfig(data: [key: "x"])))?.contains(
                "message.webpush.data") == true)
    }

    @Test func reservedKeyMessageNamesTheKey() {
        #expect(
            failure(PushMessage(target: token, data: ["type": "book", "from": "me"]))
                == #"Invalid value at 'message.data["from"]': "from" is a reserved data key (from, message_type and keys starting with google or gcm)"#
        )
    }

    @Test(arguments: ["notification", "type", "fromage", "my_google", "message"])
    func ordinaryDataKeysAreAccepted(key: String) {
        #expect(failure(PushMessage(target: token, data: [key: "x"])) == nil)
    }

    @Test func payloadSizeCountsTheMessageJSONWithoutTheTarget() {
        // {"data":{"k":"…"}} is 17 bytes of framing around the value.
        let fits = PushMessage(
            target: .token(String(repeating: "t", count: 5000)), data: ["k": String(repeating: "x", count: 4096 - 17)])
        #expect(fits.payloadByteCount == 4096)
        #expect(failure(fits) == nil)
        var tooBig = fits
        tooBig.data["k"]! += "x"
        #expect(
            failure(tooBig)
                == "Invalid value at 'message': the payload is 4097 bytes, more than the 4096 allowed for a token message"
        )

        var topic = PushMessage(target: .topic("books"), data: ["k": String(repeating: "x", count: 2048 - 17)])
        #expect(failure(topic) == nil)
        topic.data["k"]! += "é"
        #expect(
            failure(topic)
                == "Invalid value at 'message': the payload is 2050 bytes, more than the 2048 allowed for a topic message"
        )
    }

    @Test(arguments: [
        ("3.5s", true), ("0s", true), ("2419200s", true), ("86400.123456789s", true),
        ("2419201s", false), ("3.5", false), ("-1s", false), ("1.s", false), (".5s", false), ("1.0000000001s", false),
        ("1m", false), ("s", false),
    ])
    func androidTTL(ttl: String, valid: Bool) {
        let message = PushMessage(target: token, android: AndroidConfig(ttl: ttl))
        if valid {
            #expect(failure(message) == nil)
        } else {
            #expect(failure(message)?.hasPrefix("Invalid value at 'message.android.ttl'") == true)
        }
    }

    @Test func androidPriorityAndNotificationFields() {
        #expect(failure(PushMessage(target: token, android: AndroidConfig(priority: .high))) == nil)
        #expect(failure(PushMessage(target: token, android: AndroidConfig(priority: .init(rawValue: "NORMAL")))) == nil)
        #expect(
            failure(PushMessage(target: token, android: AndroidConfig(priority: .init(rawValue: "urgent"))))
                == #"Invalid value at 'message.android.priority': "urgent" is not one of normal, high"#)
        #expect(
            failure(PushMessage(target: token, android: AndroidConfig(notification: .init(color: "#00ff0A")))) == nil)
        #expect(
            failure(PushMessage(target: token, android: AndroidConfig(notification: .init(color: "red"))))
                == #"Invalid value at 'message.android.notification.color': "red" is not a color in #rrggbb form"#)
        var notification = AndroidNotification()
        notification.visibility = "HIDDEN"
        #expect(
            failure(PushMessage(target: token, android: AndroidConfig(notification: notification)))?.hasPrefix(
                "Invalid value at 'message.android.notification.visibility'") == true)
        notification = AndroidNotification()
        notification.notificationPriority = "HIGH"
        #expect(
            failure(PushMessage(target: token, android: AndroidConfig(notification: notification)))?.hasPrefix(
                "Invalid value at 'message.android.notification.notification_priority'") == true)
        notification = AndroidNotification()
        notification.vibrateTimings = ["1s", "2"]
        #expect(
            failure(PushMessage(target: token, android: AndroidConfig(notification: notification)))
                == #"Invalid value at 'message.android.notification.vibrate_timings[1]': "2" is not a duration such as "0.5s""#
        )
    }

    @Test func apnsHeaders() {
        func apns(_ headers: [String: String], notification: PushNotification? = PushNotification(title: "t"))
            -> PushMessage
        {
            PushMessage(target: token, notification: notification, apns: APNSConfig(headers: headers))
        }
        #expect(failure(apns(["apns-priority": "10", "apns-push-type": "alert"])) == nil)
        #expect(failure(apns(["apns-priority": "5"])) == nil)
        #expect(
            failure(apns(["apns-priority": "7"]))
                == #"Invalid value at 'message.apns.headers["apns-priority"]': "7" is not one of 1, 5, 10"#)
        #expect(
            failure(apns(["apns-push-type": "banner"]))?.hasPrefix(
                #"Invalid value at 'message.apns.headers["apns-push-type"]': "banner" is not an APNs push type"#)
                == true)
        #expect(
            failure(apns(["apns-push-type": "background", "apns-priority": "10"]))?.contains("background pushes")
                == true)
        #expect(failure(apns(["apns-priority": "10"], notification: nil))?.contains("data only") == true)
        #expect(failure(apns(["APNS-Expiration": "soon"]))?.contains(#"headers["apns-expiration"]"#) == true)
        #expect(
            failure(apns(["apns-collapse-id": String(repeating: "c", count: 65)]))?.contains("longer than 64 bytes")
                == true)
        #expect(
            failure(PushMessage(target: token, apns: APNSConfig(payload: ["aps": "alert"])))
                == "Invalid value at 'message.apns.payload.aps': must be an object, not string")
    }

    @Test func analyticsLabelsAndWebpushLink() {
        #expect(failure(PushMessage(target: token, fcmOptions: FCMOptions(analyticsLabel: "spring_sale-2024"))) == nil)
        #expect(
            failure(PushMessage(target: token, fcmOptions: FCMOptions(analyticsLabel: "spring sale")))?.hasPrefix(
                "Invalid value at 'message.fcm_options.analytics_label'") == true)
        #expect(
            failure(
                PushMessage(target: token, fcmOptions: FCMOptions(analyticsLabel: String(repeating: "a", count: 51))))
                != nil)
        #expect(failure(PushMessage(target: token, apns: APNSConfig(fcmOptions: .init(analyticsLabel: "")))) != nil)
        #expect(
            failure(PushMessage(target: token, webpush: WebpushConfig(fcmOptions: .init(link: "http://example.com"))))
                == #"Invalid value at 'message.webpush.fcm_options.link': "http://example.com" is not an HTTPS URL"#)
    }
}
