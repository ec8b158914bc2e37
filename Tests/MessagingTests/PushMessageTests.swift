import BSON
import Messaging
import Testing

@Suite struct PushMessageTests {
    /// The request body as FCM receives it, parsed back through the Extended JSON reader.
    private func decode(_ json: String) throws -> FCMSendRequest {
        try FCMSendRequest(json: Array(json.utf8))
    }

    private func json(_ request: FCMSendRequest) -> String {
        String(decoding: request.json, as: UTF8.self)
    }

    @Test func topicMessageWithPlatformOverridesReadsAndPrintsInReferenceOrder() throws {
        // Written in the order the FCM guides show it; printed in the documented order.
        let sent = """
            {"message":{"topic":"news","notification":{"title":"Breaking News","body":"New news story available."},
            "data":{"story_id":"story_12345"},
            "android":{"notification":{"click_action":"TOP_STORY_ACTIVITY","body":"Check out the Top Story"}},
            "apns":{"payload":{"aps":{"category":"NEW_MESSAGE_CATEGORY"}}}}}
            """
        let request = try decode(sent)
        var android = AndroidNotification(body: "Check out the Top Story")
        android.clickAction = "TOP_STORY_ACTIVITY"
        let expected = PushMessage(
            target: .topic("news"),
            notification: PushNotification(title: "Breaking News", body: "New news story available."),
            data: ["story_id": "story_12345"],
            android: AndroidConfig(notification: android),
            apns: APNSConfig(payload: ["aps": ["category": "NEW_MESSAGE_CATEGORY"]]))
        #expect(request == FCMSendRequest(message: expected))
        #expect(
            json(request)
                == #"{"message":{"data":{"story_id":"story_12345"},"notification":{"title":"Breaking News","body":"New news story available."},"android":{"notification":{"body":"Check out the Top Story","click_action":"TOP_STORY_ACTIVITY"}},"apns":{"payload":{"aps":{"category":"NEW_MESSAGE_CATEGORY"}}},"topic":"news"}}"#
        )
        #expect(try decode(json(request)) == request)
    }

    @Test func everyFieldRoundTrips() throws {
        var androidNotification = AndroidNotification(
            title: "t", body: "b", icon: "stock_ticker_update", color: "#f45342", sound: "default", tag: "tag",
            clickAction: "OPEN", channelId: "news", image: "https://example.com/a.png")
        androidNotification.bodyLocKey = "body_key"
        androidNotification.bodyLocArgs = ["1", "2"]
        androidNotification.titleLocKey = "title_key"
        androidNotification.titleLocArgs = ["x"]
        androidNotification.ticker = "ticker"
        androidNotification.sticky = true
        androidNotification.eventTime = "2024-01-02T03:04:05Z"
        androidNotification.localOnly = false
        androidNotification.notificationPriority = "PRIORITY_HIGH"
        androidNotification.defaultSound = true
        androidNotification.defaultVibrateTimings = false
        androidNotification.defaultLightSettings = false
        androidNotification.vibrateTimings = ["0.5s", "1s"]
        androidNotification.visibility = "PUBLIC"
        androidNotification.notificationCount = 3
        androidNotification.lightSettings = AndroidLightSettings(
            color: .init(red: 1, green: 0.5, blue: 0, alpha: 1), lightOnDuration: "0.2s", lightOffDuration: "0.8s")
        androidNotification.bypassProxyNotification = true
        androidNotification.proxy = "DENY"
        let message = PushMessage(
            target: .token("device-token"),
            notification: PushNotification(title: "Hi", body: "There", image: "https://example.com/i.png"),
            data: ["b": "2", "a": "1"],
            android: AndroidConfig(
                collapseKey: "books", priority: .high, ttl: "3.5s", restrictedPackageName: "com.example.books",
                data: ["android": "yes"], notification: androidNotification,
                fcmOptions: AndroidFCMOptions(analyticsLabel: "android_label"), directBootOk: true),
            apns: APNSConfig(
                headers: ["apns-priority": "10", "apns-push-type": "alert"],
                payload: ["aps": ["badge": 2, "sound": "default"], "custom": "value"],
                fcmOptions: APNSFCMOptions(analyticsLabel: "ios_label", image: "https://example.com/i.png"),
                liveActivityToken: "live"),
            webpush: WebpushConfig(
                headers: ["TTL": "60", "Urgency": "high"], data: ["web": "yes"],
                notification: ["title": "Web", "requireInteraction": true],
                fcmOptions: WebpushFCMOptions(link: "https://example.com/books", analyticsLabel: "web_label")),
            fcmOptions: FCMOptions(analyticsLabel: "all"))
        let request = FCMSendRequest(message: message, validateOnly: true)
        let text = json(request)
        #expect(try decode(text) == request)
        #expect(text.hasPrefix(#"{"message":{"data":{"a":"1","b":"2"},"notification":"#))
        #expect(
            text.hasSuffix(#""fcm_options":{"analytics_label":"all"},"token":"device-token"},"validate_only":true}"#))
        #expect(
            text.contains(
                ##""android":{"collapse_key":"books","priority":"high","ttl":"3.5s","restricted_package_name":"com.example.books","data":{"android":"yes"},"notification":{"title":"t","body":"b","icon":"stock_ticker_update","color":"#f45342""##
            ))
        #expect(
            text.contains(
                #""light_settings":{"color":{"red":1.0,"green":0.5,"blue":0.0,"alpha":1.0},"light_on_duration":"0.2s","light_off_duration":"0.8s"},"image":"https://example.com/a.png","bypass_proxy_notification":true,"proxy":"DENY"}"#
            ))
        #expect(
            text.contains(
                #""webpush":{"headers":{"TTL":"60","Urgency":"high"},"data":{"web":"yes"},"notification":{"title":"Web","requireInteraction":true},"fcm_options":{"link":"https://example.com/books","analytics_label":"web_label"}},"apns":{"headers":{"apns-priority":"10","apns-push-type":"alert"},"payload":{"aps":{"badge":2,"sound":"default"},"custom":"value"},"fcm_options":{"analytics_label":"ios_label","image":"https://example.com/i.png"},"live_activity_token":"live"}"#
            ))
    }

    @Test func conditionMessageAndValidateOnlyFlag() throws {
        let request = try decode(
            #"{"validate_only":true,"message":{"condition":"'dogs' in topics || 'cats' in topics","data":{"k":"v"}}}"#)
        #expect(request.validateOnly)
        #expect(request.message.target == .condition("'dogs' in topics || 'cats' in topics"))
        #expect(
            json(request)
                == #"{"message":{"data":{"k":"v"},"condition":"'dogs' in topics || 'cats' in topics"},"validate_only":true}"#
        )
        #expect(json(FCMSendRequest(message: request.message)).hasSuffix(#"topics"}}"#))
    }

    @Test func camelCaseNamesAndNullsAreReadAsFCMReadsThem() throws {
        let request = try decode(
            #"{"validateOnly":false,"message":{"token":"t","android":{"collapseKey":"c","restrictedPackageName":null,"notification":{"clickAction":"OPEN","notificationCount":"4"}},"fcmOptions":{"analyticsLabel":"l"}}}"#
        )
        #expect(request.message.android?.collapseKey == "c")
        #expect(request.message.android?.restrictedPackageName == nil)
        #expect(request.message.android?.notification?.clickAction == "OPEN")
        #expect(request.message.android?.notification?.notificationCount == 4)
        #expect(request.message.fcmOptions?.analyticsLabel == "l")
    }

    @Test func topicPrefixIsLeftOutOfTheJSON() {
        let message = PushMessage(target: .topic("/topics/books"))
        #expect(message.document == ["topic": "books"])
    }

    @Test(arguments: [
        (
            #"{"message":{"token":"t","notification":{"titel":"x"}}}"#,
            #"Unknown name "titel" at 'message.notification'"#
        ),
        (
            #"{"message":{"token":"t","data":{"score":3}}}"#,
            #"Invalid value at 'message.data["score"]' (TYPE_STRING), 3"#
        ),
        (#"{"message":{"token":"t","android":{"ttl":5}}}"#, "Invalid value at 'message.android.ttl' (TYPE_STRING), 5"),
        (
            #"{"message":{"token":"t","android":{"notification":{"sticky":"yes"}}}}"#,
            #"Invalid value at 'message.android.notification.sticky' (TYPE_BOOL), "yes""#
        ),
        (
            #"{"message":{"token":"t","android":{"notification":{"body_loc_args":["a",1]}}}}"#,
            "Invalid value at 'message.android.notification.body_loc_args[1]' (TYPE_STRING), 1"
        ),
        (
            #"{"message":{"token":"t","apns":{"payload":"aps"}}}"#,
            #"Invalid value at 'message.apns.payload' (google.protobuf.Struct), "aps""#
        ),
        (#"{"message":{"token":"t","topic":"x"}}"#, "oneof field 'target' is already set. Cannot set 'topic'"),
        (#"{"message":{"data":{}}}"#, "Recipient of the message is not set"),
        (#"{"message":{"token":"t","collapse_key":"x"}}"#, #"Unknown name "collapse_key" at 'message'"#),
        (
            #"{"message":{"token":"t","apns":{"fcm_options":{"link":"x"}}}}"#,
            #"Unknown name "link" at 'message.apns.fcm_options'"#
        ),
        (
            #"{"message":{"token":"t","android":{"collapse_key":"a","collapseKey":"b"}}}"#,
            "'message.android.collapse_key' is set twice"
        ),
        (#"{"validate_only":true}"#, "Missing required field 'message'"),
        (#"{"message":{"token":"t"}"#, "Invalid JSON payload received. 1:"),
    ])
    func decodingErrorsNameTheField(json: String, expected: String) {
        #expect {
            try decode(json)
        } throws: { error in
            guard let error = error as? PushError else { return false }
            return error.code == .invalidArgument && error.message.contains(expected)
        }
    }
}
