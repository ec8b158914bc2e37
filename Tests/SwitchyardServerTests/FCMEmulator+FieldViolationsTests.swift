import BSON
import Foundation
import Messaging
import Testing

@testable import SwitchyardServer

/// A field error names its field as Google's APIs do, in a `google.rpc.BadRequest` detail beside FCM's own
/// `FcmError` code: clients tell a bad token from a bad message by it.
extension FCMEmulatorTests {
    @Test func fieldErrorsNameTheFieldInABadRequestBesideFCMsErrorCode() async throws {
        let fixture = try Fixture()
        let token = fixture.emulator.issueAccessToken()
        let cases: [(body: String, field: String)] = [
            (#"{"message":{"token":"t","colour":"red"}}"#, "message"),
            (#"{"message":{"token":"t","android":{"ttl":"a week"}}}"#, "message.android.ttl"),
            (#"{"message":{"token":"t","data":{"n":5}}}"#, #"message.data["n"]"#),
            (#"{"message":{"topic":"no spaces allowed"}}"#, "message.topic"),
            (#"{"message":{}}"#, "message"),
            (#"{"validate_only":true}"#, "message"),
        ]
        for (body, field) in cases {
            let response = try await fixture.send(body, token: token)
            #expect(response.status == 400, "\(body)")
            #expect(try fcmErrorCode(response) == "INVALID_ARGUMENT", "\(body)")
            let violations = try fieldViolations(response)
            #expect(violations.map { $0["field"] } == [.string(field)], "\(body)")
            #expect(violations.first?["description"] == (try googleError(response)["message"]), "\(body)")
        }
        #expect(fixture.outbox.entries.isEmpty)
    }

    /// The `fieldViolations` of a Google error's `BadRequest` detail.
    func fieldViolations(_ response: HTTPResponse) throws -> [BSONDocument] {
        let details = try googleError(response)["details"]?.arrayValue ?? []
        let badRequest = details.compactMap(\.documentValue).first {
            $0["@type"] == "type.googleapis.com/google.rpc.BadRequest"
        }
        return badRequest?["fieldViolations"]?.arrayValue?.compactMap(\.documentValue) ?? []
    }
}
