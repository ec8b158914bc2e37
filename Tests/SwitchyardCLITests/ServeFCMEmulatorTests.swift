import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The FCM emulator of `switchyard serve` as a developer tries it with curl.
@Suite(.timeLimit(.minutes(2))) struct ServeFCMEmulatorTests {
    @Test func bearerOwnerSendsThroughTheEmulatorButServePushLiveRefusesIt() async throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        let key = try app.write("account.json", try Self.serviceAccountJSON())
        for live in [false, true] {
            var arguments = ["serve", "--port", "0", "--log-format", "json"]
            if live { arguments += ["--push", "live", "--service-account", key] }
            let running = try RunningSwitchyard(arguments, in: app.path)
            // Stopped before the next one starts: both use the app's data directory.
            defer { _ = running.interrupt() }
            let serving = try await running.awaitLine(containing: "serving app 'demo'")
            let url = try #require((serving["fcmEmulator"] as? String).flatMap(URL.init(string:)))
            var request = URLRequest(url: url)
            request.httpMethod = "POST"
            request.setValue("Bearer owner", forHTTPHeaderField: "Authorization")
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"message": {"token": "phone-1", "data": {"bookId": "42"}}}"#.utf8)
            let (body, response) = try await URLSession.shared.data(for: request)
            let text = String(decoding: body, as: UTF8.self)
            let status = (response as? HTTPURLResponse)?.statusCode
            if live {
                #expect(status == 401, "\(text)")
                #expect(text.contains("--push emulator"), "\(text)")
            } else {
                #expect(status == 200, "\(text)")
                #expect(text.contains("\"name\":\"projects/demo/messages/"), "\(text)")
            }
        }
    }

    /// A service-account key with a fresh RSA key (`serve --push live` reads it at start and sends nothing here).
    static func serviceAccountJSON() throws -> String {
        let pem = try freshRSAPrivateKeyPEM()
        let account: [String: String] = [
            "type": "service_account", "project_id": "demo-live", "private_key_id": "test-key", "private_key": pem,
            "client_email": "sender@demo-live.iam.gserviceaccount.com",
            "token_uri": "https://oauth2.googleapis.com/token",
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: account), as: UTF8.self)
    }
}
