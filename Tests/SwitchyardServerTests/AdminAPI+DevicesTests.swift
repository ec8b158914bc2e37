import BSON
import Foundation
import Messaging
import Testing

@testable import SwitchyardServer

/// Devices registered with a platform, over the admin API and the FCM emulator, and the per-platform views the
/// outbox answers with.
@Suite struct AdminAPIDevicesTests {
    private func put(_ server: AdminTestServer, _ path: String, _ body: String, token: String) async throws
        -> HTTPResponse
    {
        try await server.client.put(
            url: server.baseURL + path, body: Array(body.utf8),
            headers: ["Authorization": "Bearer \(token)", "Content-Type": "application/json"])
    }

    @Test func aTokenRegisteredWithAPlatformIsListedWithItAndGetsThatPlatformsView() async throws {
        try await AdminTestServer.run { server in
            let admin = "/admin/v1/devices/"
            let registered = try await put(server, admin + "phone-1", #"{"platform": "ios"}"#, token: server.token)
            #expect(registered.status == 200, "\(registered.text)")
            #expect(registered.document == ["token": "phone-1", "platform": "ios", "topics": []])
            #expect(
                try await put(server, admin + "phone-1", #"{"platform": "ipad"}"#, token: server.token).status == 400)

            let emulator = "/emulator/v1/projects/\(server.server.fcmEmulator.project)/devices/"
            let access = server.server.fcmEmulator.issueAccessToken()
            let pixel = try await put(server, emulator + "pixel-1", #"{"platform": "android"}"#, token: access)
            #expect(pixel.status == 200, "\(pixel.text)")
            #expect(pixel.document == ["token": "pixel-1", "platform": "android"])
            #expect(
                try await put(server, emulator + "pixel-1", #"{"platform": "android"}"#, token: "nope").status == 401)

            let devices = try #require(try await server.get("/devices").document?["devices"]?.arrayValue)
            #expect(
                devices == [
                    ["token": "phone-1", "platform": "ios", "topics": []],
                    ["token": "pixel-1", "platform": "android", "topics": []],
                ])

            for token in ["phone-1", "pixel-1", "loose-1"] {
                _ = try await server.app.messaging.send(
                    PushMessage(target: .token(token), notification: .init(title: "Dune changed")))
            }
            let messages = try #require(try await server.get("/outbox").document?["messages"]?.arrayValue)
                .compactMap(\.documentValue)
            #expect(messages.count == 3)
            #expect(
                messages.map { $0.keys.filter { ["ios", "android", "web"].contains($0) } } == [
                    ["ios"], ["android"], ["ios", "android"],
                ])
            let userInfo = try #require(messages[0]["ios"]?.documentValue?["userInfo"]?.documentValue)
            #expect(userInfo.value(atPath: "aps.alert.title") == "Dune changed")
            #expect(userInfo["gcm.message_id"]?.stringValue != nil)
            #expect(messages[0]["platforms"] == ["ios": ["phone-1"]])
            #expect(messages[1].value(atPath: "android.notification.title") == "Dune changed")

            // Forgetting the platform: both views again.
            #expect(try await put(server, admin + "phone-1", #"{"platform": null}"#, token: server.token).status == 200)
            #expect(server.app.pushOutbox.devices.platform(of: "phone-1") == nil)
        }
    }
}
