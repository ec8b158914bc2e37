import BSON
import Foundation
import Messaging
import Testing

@testable import SwitchyardServer

/// FCM, IID and Google's token endpoint read plain JSON: an object with `$` keys is an object like any other,
/// never an Extended JSON type wrapper to convert or to refuse.
extension FCMEmulatorTests {
    @Test func aSendsDollarKeysAreKeysNotExtendedJSONTypes() async throws {
        let fixture = try Fixture()
        let token = fixture.emulator.issueAccessToken()
        // A data map whose one key is `$numberLong`: FCM delivers it as written.
        let data = try await fixture.send(#"{"message":{"token":"phone","data":{"$numberLong":"5"}}}"#, token: token)
        #expect(data.status == 200, "\(data.text)")
        #expect(fixture.outbox.entries.last?.payload?["data"] == ["$numberLong": "5"])

        // `apns.payload` is a protobuf Struct: any JSON object, `$date` beside other keys included.
        let payload =
            #"{"aps":{"alert":"Dune"},"when":{"case":"x","$date":"2020-01-01T00:00:00Z"},"n":{"$numberLong":"5"}}"#
        let apns = try await fixture.send(
            #"{"message":{"token":"phone","apns":{"payload":\#(payload)}}}"#, token: token)
        #expect(apns.status == 200, "\(apns.text)")
        let sent = try #require(fixture.outbox.entries.last?.request["message"]?.documentValue)
        let kept = sent["apns"]?.documentValue?["payload"]?.documentValue
        #expect(kept?["when"] == ["case": "x", "$date": "2020-01-01T00:00:00Z"])
        #expect(kept?["n"] == ["$numberLong": "5"])

        // Where FCM wants a string, a wrapper is an object, refused as one.
        let title = try await fixture.send(
            #"{"message":{"token":"phone","notification":{"title":{"$numberLong":"5"}}}}"#, token: token)
        #expect(title.status == 400)
        #expect(try googleError(title)["message"]?.stringValue?.contains("message.notification.title") == true)
        #expect(fixture.outbox.entries.count == 2)
    }

    @Test func batchBodiesArePlainJSON() async throws {
        let fixture = try Fixture()
        let token = fixture.emulator.issueAccessToken()
        let response = try await fixture.post(
            "/iid/v1:batchAdd",
            json: #"{"to":"/topics/books","registration_tokens":["phone",{"case":1,"$date":2},{"$oid":"x"}]}"#,
            token: token)
        #expect(response.status == 200, "\(response.text)")
        #expect(response.text == #"{"results":[{},{"error":"INVALID_ARGUMENT"},{"error":"INVALID_ARGUMENT"}]}"#)
        #expect(fixture.emulator.topics.tokens(subscribedTo: "books") == ["phone"])
    }

    @Test func aDeviceRegistrationBodyIsPlainJSON() async throws {
        let fixture = try Fixture()
        let response = try await fixture.client.put(
            url: "\(fixture.server.baseURL)/emulator/v1/projects/books-app/devices/phone",
            body: Array(#"{"platform":"ios","note":{"case":1,"$date":2}}"#.utf8),
            headers: ["Authorization": "Bearer \(fixture.emulator.issueAccessToken())"])
        #expect(response.status == 200, "\(response.text)")
        #expect(fixture.outbox.devices.platform(of: "phone") == .ios)
    }

    @Test func anAssertionsClaimsArePlainJSON() async throws {
        let fixture = try Fixture()
        let now = Int64(Date().timeIntervalSince1970)
        let wrapped = Self.assertion([
            "aud": .string(fixture.tokenURI), "iat": ["$numberLong": .string("\(now)")],
            "exp": ["$numberLong": .string("\(now + 3600)")],
        ])
        let response = try await fixture.postForm(
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(wrapped)")
        #expect(response.status == 400)
        let body = try #require(response.json?.documentValue)
        #expect(body["error"] == "invalid_grant")
        #expect(body["error_description"]?.stringValue?.contains("'iat' and 'exp' must be numbers") == true)
    }
}
