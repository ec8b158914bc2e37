import BSON
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// Which credentials the emulator takes: assertions signed for its own token endpoint (or Google's).
extension FCMEmulatorTests {
    static let jwtBearerGrant = "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion="

    @Test func anAssertionForAnotherTokenEndpointIsAnInvalidGrant() async throws {
        let fixture = try Fixture()
        for audience in [
            "https://attacker.example/token", "http://127.0.0.1:1/oauth2/token", "\(fixture.server.baseURL)/token",
            "https://oauth2.googleapis.com/token/",
        ] {
            let response = try await fixture.postForm(
                Self.jwtBearerGrant + Self.assertion(["aud": .string(audience)]))
            #expect(response.status == 400, "\(audience)")
            let body = try #require(response.json?.documentValue)
            #expect(body["error"] == "invalid_grant", "\(audience)")
            let description = body["error_description"]?.stringValue ?? ""
            #expect(description.hasPrefix("Invalid JWT: Failed audience check."), "\(audience)")
            #expect(description.contains(fixture.tokenURI), "names the accepted audience: \(description)")
        }
        for audience in [fixture.tokenURI, ServiceAccount.googleTokenURI] {
            let response = try await fixture.postForm(
                Self.jwtBearerGrant + Self.assertion(["aud": .string(audience)]))
            #expect(response.status == 200, "\(audience): \(response.text)")
        }
    }
}
