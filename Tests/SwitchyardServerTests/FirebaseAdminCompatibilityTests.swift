import BSON
import Foundation
import Messaging
import Switchyard
import TestSupport
import Testing

@testable import SwitchyardServer

/// firebase-admin 7.7.0 (Python, from PyPI) against the FCM emulator of a served app, beside Switchyard's own
/// `FCMClient` making the same calls against another: the SDK parses every answer as it parses Google's
/// (the unregistered token's as `UnregisteredError`, the malformed one's as `InvalidArgumentError`), and both
/// leave the same outbox.
@Suite(.timeLimit(.minutes(5))) struct FirebaseAdminCompatibilityTests {
    static let unregistered = "uninstalled-app"
    static let script = ServedApp.repositoryRoot + "/Tests/Compatibility/firebase_admin_compat.py"

    @Test func firebaseAdminAndFCMClientLeaveTheSameOutbox() async throws {
        let python = try await FirebaseAdminVenv.python()
        let keyPEM = try freshRSAPrivateKeyPEM()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("compat-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        let (sdkEntries, sdkSubscribers) = try await ServedApp.with(FunctionRegistry()) { served in
            served.app.pushOutbox.unregisteredTokens = [Self.unregistered]
            let keyFile = directory.appendingPathComponent("service-account.json").path
            try Self.serviceAccountJSON(served, keyPEM: keyPEM).write(
                toFile: keyFile, atomically: true, encoding: .utf8)
            let run = try await FinishedProcess.run(
                python, [Self.script, served.server.http.baseURL, keyFile, Self.unregistered])
            try #require(run.status == 0, "firebase_admin_compat.py exited \(run.status): \(run.errors)")
            let report = try #require(try ExtendedJSON.parseValue(run.output).documentValue, "\(run.output)")
            #expect(report["subscribed"]?.int64Value == 2)
            #expect(report["topicMessage"]?.stringValue?.hasPrefix("projects/switchyard-local/messages/") == true)
            let multicast = report["multicast"]?.arrayValue?.compactMap(\.documentValue) ?? []
            #expect(multicast.map { $0["success"]?.boolValue } == [true, false, true])
            let failure = try #require(multicast.count == 3 ? multicast[1] : nil)
            #expect(failure["exception"]?.stringValue == "UnregisteredError")
            #expect(failure["code"]?.stringValue == "NOT_FOUND")
            #expect(failure["status"]?.int64Value == 404)
            #expect(failure["firebaseError"]?.boolValue == true)
            #expect(multicast[0]["messageId"]?.stringValue?.hasPrefix("projects/switchyard-local/messages/") == true)
            #expect(report["firebaseAdmin"] == .string(FirebaseAdminVenv.version))
            #expect(report["fidMessage"]?.stringValue?.hasPrefix("projects/switchyard-local/messages/") == true)
            let malformed = try #require(report["malformedToken"]?.documentValue)
            #expect(malformed["exception"] == "InvalidArgumentError")
            #expect(malformed["code"] == "INVALID_ARGUMENT" && malformed["status"] == 400)
            #expect(malformed["message"] == "The registration token is not a valid FCM registration token")
            return (served.app.pushOutbox.entries, served.app.pushOutbox.topics.tokens(reachedBy: .topic("books")))
        }

        let (clientEntries, clientSubscribers) = try await ServedApp.with(FunctionRegistry()) { served in
            served.app.pushOutbox.unregisteredTokens = [Self.unregistered]
            let account = try ServiceAccount(json: Self.serviceAccountJSON(served, keyPEM: keyPEM))
            let client = try FCMClient(
                serviceAccount: account,
                configuration: FCMClient.Configuration(endpoints: .emulator(served.server.http.baseURL)))
            let subscribed = try await client.subscribeToTopic(["phone-1", "phone-2"], topic: "books")
            #expect(subscribed.successCount == 2)
            _ = try await client.send(Self.topicMessage)
            let response = try await client.sendEachForMulticast(Self.multicast)
            #expect(response.results.map(\.error?.code) == [nil, .unregistered, nil])
            _ = try await client.send(Self.fidMessage)
            await #expect(throws: PushError.self) {
                try await client.send(PushMessage(target: .token("not a token ☃")))
            }
            return (served.app.pushOutbox.entries, served.app.pushOutbox.topics.tokens(reachedBy: .topic("books")))
        }

        #expect(sdkSubscribers == ["phone-1", "phone-2"])
        #expect(sdkSubscribers == clientSubscribers)
        #expect(sdkEntries.count == 6)
        #expect(sdkEntries.contains { $0.target == .fid("fid-phone-1") && $0.payload?["data"] == ["$numberLong": "5"] })
        let sdk = Self.comparable(sdkEntries)
        let ours = Self.comparable(clientEntries)
        #expect(sdk.count == ours.count)
        for (fromSDK, fromClient) in zip(sdk, ours) {
            #expect(fromSDK == fromClient)
        }
    }

    /// What the Python script sends, made with Switchyard's model.
    static let topicMessage = PushMessage(
        target: .topic("books"),
        notification: PushNotification(
            title: "New book added", body: "Dune by Frank Herbert", image: "https://books.example/dune.jpg"),
        data: ["bookId": "42", "type": "book_added"],
        android: AndroidConfig(
            collapseKey: "42", priority: .high,
            notification: AndroidNotification(tag: "42", image: "https://books.example/dune.jpg")),
        apns: APNSConfig(
            headers: ["apns-collapse-id": "42"],
            payload: ["aps": ["sound": "default", "thread-id": "42", "mutable-content": 1]],
            fcmOptions: APNSFCMOptions(image: "https://books.example/dune.jpg")))

    static let fidMessage = PushMessage(
        target: .fid("fid-phone-1"),
        notification: PushNotification(title: "A favourite book changed", body: "Dune Messiah"),
        data: ["$numberLong": "5"])

    static let multicast = MulticastMessage(
        tokens: ["phone-1", unregistered, "phone-2"],
        notification: PushNotification(title: "A favourite book changed", body: "Dune Messiah"),
        data: ["bookId": "43", "type": "favorite_book_updated"])

    /// A service-account key file whose `token_uri` is the served emulator's.
    static func serviceAccountJSON(_ served: ServedApp, keyPEM: String) -> String {
        let document: BSONDocument = [
            "type": "service_account", "project_id": .string(served.server.fcmEmulator.project),
            "private_key_id": "compat-key", "private_key": .string(keyPEM),
            "client_email": "compat@switchyard-local.iam.gserviceaccount.com", "client_id": "1",
            "token_uri": .string("\(served.server.http.baseURL)/oauth2/token"),
        ]
        return document.extendedJSON(mode: .relaxed)
    }

    /// Each entry as relaxed Extended JSON with keys sorted at every level (JSON objects have no order), without
    /// what differs between any two sends (name, time, the devices' message ids, send times and the APNs
    /// expiration counted from it); sorted, since concurrent sends are recorded in any order.
    static func comparable(_ entries: [OutboxEntry]) -> [String] {
        entries.map { entry in
            var entry = entry
            entry.payload?["messageId"] = nil
            entry.ios?.userInfo["gcm.message_id"] = nil
            entry.ios?.headers["apns-expiration"] = nil
            entry.android?.messageId = ""
            entry.android?.sentTime = 0
            entry.web?.messageId = ""
            var document = entry.document
            document["name"] = nil
            document["time"] = nil
            return BSON.document(sortedKeys(document)).extendedJSON(mode: .relaxed)
        }.sorted()
    }

    static func sortedKeys(_ document: BSONDocument) -> BSONDocument {
        var sorted = BSONDocument()
        for key in document.keys.sorted() {
            guard let value = document[key] else { continue }
            switch value {
            case .document(let inner): sorted.append(key, .document(sortedKeys(inner)))
            default: sorted.append(key, value)
            }
        }
        return sorted
    }
}

/// The venv with PyPI's firebase-admin under `.build/`, made on first use. Failing to make it fails the test with
/// pip's reason: CI machines have python3 and pip with PyPI access.
enum FirebaseAdminVenv {
    static let directory = ServedApp.repositoryRoot + "/.build/compat-venv"
    /// The release proven against: 7.7.0 sends to `fid` targets and manages topics through FCM v1. A venv
    /// holding another release is made anew.
    static let version = "7.7.0"

    static func python() async throws -> String {
        let python = directory + "/bin/python"
        if FileManager.default.isExecutableFile(atPath: python),
            try await FinishedProcess.run(
                python, ["-c", "import sys, firebase_admin; sys.exit(firebase_admin.__version__ != '\(version)')"]
            ).status == 0
        {
            return python
        }
        let made = try await FinishedProcess.run("/usr/bin/env", ["python3", "-m", "venv", "--clear", directory])
        guard made.status == 0 else {
            throw TestFailure(
                "cannot make the venv \(directory) (python3 -m venv exited \(made.status)): \(made.errors)")
        }
        let installed = try await FinishedProcess.run(
            directory + "/bin/pip",
            ["install", "--quiet", "--disable-pip-version-check", "firebase-admin==\(version)"])
        guard installed.status == 0 else {
            throw TestFailure("pip cannot install firebase-admin into \(directory): \(installed.errors)")
        }
        return python
    }
}
