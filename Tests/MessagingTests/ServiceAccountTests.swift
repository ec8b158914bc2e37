import BSON
import Foundation
import Messaging
import Testing

@Suite struct ServiceAccountTests {
    @Test func readsTheDownloadedJSONFile() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("service-account.json").path
        try TestCredentials.serviceAccountJSON(tokenURI: "https://oauth2.googleapis.com/token")
            .write(toFile: path, atomically: true, encoding: .utf8)

        let account = try ServiceAccount(contentsOfFile: path)
        #expect(account.projectId == "demo")
        #expect(account.clientEmail == "push@demo.iam.gserviceaccount.com")
        #expect(account.privateKeyId == "key-1")
        #expect(account.tokenURI == "https://oauth2.googleapis.com/token")
        #expect(account.signingKey.algorithm == .rs256)
    }

    @Test func readsTheJSONKeptAsASecret() throws {
        let text = TestCredentials.serviceAccountJSON(tokenURI: "http://127.0.0.1:9/oauth2/token")
        let account = try ServiceAccount(json: text, source: "secret fcmServiceAccount")
        #expect(account.tokenURI == "http://127.0.0.1:9/oauth2/token")
    }

    @Test func malformedJSONSaysWhere() {
        #expect(throws: CredentialError("sa.json is not valid JSON: 2:2: expected ',' or '}' after object member")) {
            try ServiceAccount(json: "{\"project_id\": \"demo\"\n \"client_email\" }", source: "sa.json")
        }
    }

    @Test func missingOrWrongFieldsAreNamed() throws {
        #expect(throws: CredentialError("sa.json has no client_email")) {
            try ServiceAccount(json: #"{"project_id":"demo","private_key":"x"}"#, source: "sa.json")
        }
        #expect(throws: CredentialError("sa.json: project_id must be a string, not a number")) {
            try ServiceAccount(json: #"{"project_id":7}"#, source: "sa.json")
        }
        #expect(throws: CredentialError("sa.json is a \"authorized_user\" credential, not a service_account")) {
            try ServiceAccount(json: #"{"type":"authorized_user"}"#, source: "sa.json")
        }
        #expect(throws: CredentialError("cannot read the service account file /nonexistent/sa.json")) {
            try ServiceAccount(contentsOfFile: "/nonexistent/sa.json")
        }
        let ecKey = TestCredentials.p256PrivateKeyPEM()
        #expect(
            throws: CredentialError(
                "sa.json: private_key is not an RSA key (Google signs service accounts with RS256)")
        ) {
            try ServiceAccount(
                document: [
                    "project_id": "demo", "client_email": "a@b", "private_key": .string(ecKey),
                ], source: "sa.json")
        }
    }

    @Test func descriptionsNeverShowTheKey() throws {
        let account = try TestCredentials.serviceAccount(tokenURI: "https://oauth2.googleapis.com/token")
        var dumped = ""
        dump(account, to: &dumped)
        for text in ["\(account)", String(reflecting: account), dumped] {
            #expect(!text.contains("PRIVATE KEY"))
            #expect(text.contains("push@demo.iam.gserviceaccount.com"))
        }
    }
}
