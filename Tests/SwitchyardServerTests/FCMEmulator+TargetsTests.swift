import BSON
import Foundation
import Messaging
import Testing

@testable import SwitchyardServer

/// Whom a message goes to, as FCM reads it: a Firebase installation ID like a registration token.
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
}
