import BSON
import Foundation
import Messaging
import Testing

@testable import SwitchyardServer

/// Whom a message goes to, as FCM reads it: a Firebase installation ID like a registration token, and a string
/// that cannot be a token refused before anything is delivered.
extension FCMEmulatorTests {
    @Test func aMessageToAFirebaseInstallationIDIsDeliveredLikeOneToAToken() async throws {
        let fixture = try Fixture()
        fixture.emulator.faults.unregisteredTokens = ["fid-gone"]
        let token = fixture.emulator.issueAccessToken()
        let sent = try await fixture.send(
            #"{"message":{"fid":"fid-phone","notification":{"title":"New book","body":"Dune"}}}"#, token: token)
        #expect(sent.status == 200, "\(sent.text)")
        let entry = try #require(fixture.outbox.entries.last)
        #expect(entry.target == .fid("fid-phone"))
        #expect(entry.reachedTokens == ["fid-phone"])
        #expect(entry.payload?["notification"] == ["title": "New book", "body": "Dune"])
        #expect(entry.request["message"]?.documentValue?["fid"] == "fid-phone")

        let gone = try await fixture.send(#"{"message":{"fid":"fid-gone"}}"#, token: token)
        #expect(gone.status == 404)
        #expect(try fcmErrorCode(gone) == "UNREGISTERED")

        let both = try await fixture.send(#"{"message":{"token":"phone","fid":"fid-phone"}}"#, token: token)
        #expect(both.status == 400)
        #expect(try googleError(both)["message"]?.stringValue?.contains("oneof field 'target' is already set") == true)
    }

    @Test func aStringThatCannotBeARegistrationTokenIsRefusedAsFCMRefusesIt() async throws {
        let fixture = try Fixture()
        let token = fixture.emulator.issueAccessToken()
        for body in [
            #"{"message":{"token":"not a token ☃"}}"#, #"{"message":{"token":"not a token ☃"},"validate_only":true}"#,
        ] {
            let response = try await fixture.send(body, token: token)
            #expect(response.status == 400, "\(body)")
            let error = try googleError(response)
            #expect(error["status"] == "INVALID_ARGUMENT")
            #expect(error["message"] == "The registration token is not a valid FCM registration token")
            #expect(try fcmErrorCode(response) == "INVALID_ARGUMENT")
            #expect(try fieldViolations(response).map { $0["field"] } == ["message.token"])
        }
        let fid = try await fixture.send(#"{"message":{"fid":"fid with spaces"}}"#, token: token)
        #expect(fid.status == 400)
        #expect(try fieldViolations(fid).map { $0["field"] } == ["message.fid"])
        #expect(fixture.outbox.entries.allSatisfy { !$0.isDelivered })
    }
}
