import Foundation
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Logs a new anonymous user in through a served app's client API (`…/api/client/v2.0/app/APP`): their access token.
func anonymousAccessToken(at clientAPI: String) async throws -> String {
    var login = URLRequest(url: try #require(URL(string: "\(clientAPI)/auth/providers/anon-user/login")))
    login.httpMethod = "POST"
    login.httpBody = Data("{}".utf8)
    let (session, _) = try await URLSession.shared.data(for: login)
    return try #require(
        (try JSONSerialization.jsonObject(with: session) as? [String: Any])?["access_token"] as? String)
}
