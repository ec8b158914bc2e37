import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

@Suite struct OutboxFollowTests {
    /// `serve` answers FCM; `outbox --follow` prints what it recorded, with the tokens a topic reached.
    @Test func followPrintsMessagesSentToTheServedEmulatorWithTheTokensTheyReached() async throws {
        let app = try TemporaryDirectory()
        let (server, url, base) = try servedEmulator(in: app)
        defer { server.kill() }

        let token = try await accessToken(base: base)
        let subscribe = try await post(
            "\(base)/iid/v1:batchAdd", #"{"to":"/topics/books","registration_tokens":["phone","tablet"]}"#,
            token: token)
        #expect(subscribe.status == 200)
        let follower = try RunningSwitchyard(["outbox", "--follow"], in: app.path)
        defer { follower.kill() }
        let sent = try await post(url, #"{"message":{"topic":"books","data":{"id":"7"}}}"#, token: token)
        #expect(sent.status == 200, "\(sent.body)")
        let printed = try #require(follower.lines(atLeast: 1).last)
        #expect(printed.contains(#""target":{"topic":"books"}"#))
        #expect(printed.contains(#""reachedTokens":["phone","tablet"]"#))
    }

    /// A device registers as an iPhone with the served emulator: `outbox` prints the iOS payload it receives,
    /// with the `gcm.message_id` the tutorial's client filters on, and no Android view.
    @Test func outboxPrintsWhatARegisteredIPhoneReceives() async throws {
        let app = try TemporaryDirectory()
        let (server, url, base) = try servedEmulator(in: app)
        defer { server.kill() }
        let parts = url.split(separator: "/")
        let project = try #require(parts.firstIndex(of: "projects").map { String(parts[$0 + 1]) })

        let token = try await accessToken(base: base)
        let registered = try await post(
            "\(base)/emulator/v1/projects/\(project)/devices/phone", #"{"platform":"ios"}"#, token: token,
            method: "PUT")
        #expect(registered.status == 200, "\(registered.body)")
        let sent = try await post(
            url, #"{"message":{"token":"phone","notification":{"title":"Dune changed"}}}"#, token: token)
        #expect(sent.status == 200, "\(sent.body)")
        let printed = try switchyard(["outbox"], in: app.path)
        #expect(printed.status == 0, "\(printed.stderr)")
        let entry = try #require(printed.stdout.split(separator: "\n").last.map(String.init))
        #expect(entry.contains(#""aps":{"alert":{"title":"Dune changed"}}"#), "\(entry)")
        #expect(entry.contains(#""gcm.message_id":""#), "\(entry)")
        #expect(entry.contains(#""platforms":{"ios":["phone"]}"#), "\(entry)")
        #expect(!entry.contains(#""android":"#), "\(entry)")
    }

    /// `serve` of the ping app in `app`, with the FCM emulator's `messages:send` URL it prints and the server's base.
    private func servedEmulator(in app: TemporaryDirectory) throws -> (RunningSwitchyard, url: String, base: String) {
        try app.write("triggers.yaml", pingApp)
        let server = try RunningSwitchyard(["serve", "--port", "0"], in: app.path)
        do {
            let line = try #require(server.lines(atLeast: 4).first { $0.contains("FCM emulator") })
            let url = try #require(line.split(separator: " ").last.map(String.init))
            let base = try #require(url.range(of: "/v1/").map { String(url[..<$0.lowerBound]) })
            return (server, url, base)
        } catch {
            server.kill()
            throw error
        }
    }

    private func post(_ url: String, _ body: String, token: String?, form: Bool = false, method: String = "POST")
        async throws -> (status: Int, body: String)
    {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = method
        request.httpBody = Data(body.utf8)
        request.setValue(
            form ? "application/x-www-form-urlencoded" : "application/json", forHTTPHeaderField: "Content-Type")
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// The JWT-bearer grant with a well-formed RS256 assertion (the emulator checks its form, not its signature).
    private func accessToken(base: String) async throws -> String {
        func part(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }
        let now = Int(Date().timeIntervalSince1970)
        let claims = """
            {"iss":"sender@demo.iam.gserviceaccount.com","scope":"https://www.googleapis.com/auth/firebase.messaging",\
            "aud":"\(base)/oauth2/token","iat":\(now),"exp":\(now + 3600)}
            """
        let assertion = [Data(#"{"alg":"RS256","typ":"JWT"}"#.utf8), Data(claims.utf8), Data(repeating: 1, count: 256)]
            .map(part).joined(separator: ".")
        let response = try await post(
            "\(base)/oauth2/token",
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Ajwt-bearer&assertion=\(assertion)",
            token: nil, form: true)
        let json = try JSONSerialization.jsonObject(with: Data(response.body.utf8)) as? [String: Any]
        return try #require(json?["access_token"] as? String, "\(response.body)")
    }
}
