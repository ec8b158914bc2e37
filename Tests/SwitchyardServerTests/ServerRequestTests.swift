import Testing

@testable import SwitchyardServer

/// The bearer token as every authenticated client API call reads it, the usual header and the unusual alike.
@Suite struct ServerRequestTests {
    private func token(_ authorization: String?) -> String? {
        ServerRequest(method: "POST", path: "/", headers: authorization.map { ["authorization": $0] } ?? [:])
            .bearerToken
    }

    @Test func theSchemeIsCaseInsensitiveAndTheTokenTrimmed() {
        #expect(token("Bearer eyJ.abc.def") == "eyJ.abc.def")
        #expect(token("bearer eyJ.abc.def") == "eyJ.abc.def")
        #expect(token("BEARER eyJ.abc.def") == "eyJ.abc.def")
        #expect(token("Bearer   eyJ.abc.def  ") == "eyJ.abc.def")
        #expect(token("Bearer eyJ abc") == "eyJ abc")
        #expect(token("Bearer tökén") == "tökén")
        #expect(token("Bearer \u{00A0}tok\u{00A0}") == "tok")
    }

    @Test func otherSchemesAndEmptyTokensAreNone() {
        #expect(token(nil) == nil)
        #expect(token("Basic dXNlcjpwYXNz") == nil)
        #expect(token("Bearer") == nil)
        #expect(token("Bearer ") == nil)
        #expect(token("Bearer    ") == nil)
        #expect(token("Bearer\teyJ") == nil)
        #expect(token("Bearerx eyJ") == nil)
    }
}
