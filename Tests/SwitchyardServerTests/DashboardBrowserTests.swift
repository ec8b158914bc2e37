import BSON
import Foundation
import Messaging
import Switchyard
import Testing

@testable import SwitchyardServer

/// The dashboard in a real browser (headless Chromium): add a book in the data editor, watch the trigger run and
/// the notification appear on the subscribed device's card; survive a server restart with a new token.
@Suite(.serialized) struct DashboardBrowserTests {
    static let device = "fcm-device-token-1"
    static let book = #"{"volumeInfo": {"title": "Dune", "authors": ["Frank Herbert"]}}"#

    /// Where screenshots are kept for people to look at: `.build/test-screenshots/`.
    static let screenshots = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent(".build/test-screenshots")

    /// A user whose device registered its token (the example app's `updateFCMUserToken`) and subscribed to the
    /// `books` topic through the FCM emulator, as the tutorial's iOS app does.
    private func registerDevice(_ server: AdminTestServer) async throws {
        let user = try await server.register("reader@example.com")
        let call = try await server.client.post(
            url: server.clientURL("/functions/call"),
            body: Array(#"{"name": "updateFCMUserToken", "arguments": ["\#(Self.device)", "add"]}"#.utf8),
            headers: ["Authorization": "Bearer \(user.accessToken)"])
        #expect(call.status == 200, "\(call.text)")
        let subscribe = try await server.client.post(
            url: server.baseURL + "/iid/v1/\(Self.device)/rel/topics/books", body: [],
            headers: ["Authorization": "Bearer \(server.server.fcmEmulator.issueAccessToken())"])
        #expect(subscribe.status == 200, "\(subscribe.text)")
    }

    private func withBrowser<Result>(_ body: (HeadlessChromium) async throws -> Result) async throws -> Result {
        let profile = FileManager.default.temporaryDirectory.appendingPathComponent("chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let browser = try HeadlessChromium(profileDirectory: profile.path)
        defer {
            browser.close()
            try? FileManager.default.removeItem(at: profile)
        }
        return try await body(browser)
    }

    private func save(_ png: Data, as name: String) throws {
        try FileManager.default.createDirectory(at: Self.screenshots, withIntermediateDirectories: true)
        try png.write(to: Self.screenshots.appendingPathComponent(name))
    }

    @Test func addingABookRunsTheTriggerAndTheNotificationAppearsOnTheDevice() async throws {
        try await AdminTestServer.run { server in
            try await registerDevice(server)
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#outbox")
                let card = #"document.querySelector('.phone[data-token="\#(Self.device)"]')"#
                try await page.wait(until: card)
                #expect(try await page.evaluate("\(card).innerText").stringValue?.contains("topics: books") == true)
                #expect(try await page.evaluate("\(card).querySelectorAll('.notification').length") == .int32(0))
                try await page.wait(until: "document.getElementById('connection').textContent === 'live'")

                // Add the book the way a developer would: the data tab's insert form.
                try await page.evaluate(
                    """
                    location.hash = '#data';
                    document.getElementById('data-database').value = 'product';
                    document.getElementById('data-collection').value = 'book';
                    document.getElementById('insert-panel').open = true;
                    document.getElementById('insert-document').value = \(Self.javaScriptString(Self.book));
                    document.getElementById('insert-button').click();
                    """)
                try await page.wait(
                    until: "document.querySelector('#documents pre')?.textContent.includes('Frank Herbert')")
                #expect(try await server.app.store.database("product").collection("book").countDocuments() == 1)

                try await page.evaluate("location.hash = '#outbox'")
                let notification = "\(card).querySelector('.notification')"
                try await page.wait(until: notification)
                #expect(
                    try await page.evaluate("\(notification).querySelector('.title').textContent") == "New book added")
                #expect(
                    try await page.evaluate("\(notification).querySelector('.body').textContent")
                        == "Dune has been added to the list")
                #expect(
                    try await page.evaluate("document.querySelector('#outbox tr')?.innerText.includes('topic books')")
                        == true)
                try await page.wait(until: "document.getAnimations().length === 0")
                try save(try await page.screenshot(), as: "dashboard-notification.png")

                // The trigger ran, as the live views show.
                try await page.evaluate("location.hash = '#logs'")
                try await page.wait(
                    until: "document.querySelector('#invocations tr[data-function=\"sentTopicNotification\"]')")
                try await page.evaluate("location.hash = '#triggers'")
                let processed =
                    "document.querySelector('#triggers tr[data-trigger=\"onBookPushNotification\"] td:nth-child(5)')"
                try await page.wait(until: "\(processed)?.textContent === '1'")
                let png = try await page.screenshot()
                #expect(png.starts(with: [0x89, 0x50, 0x4E, 0x47]))
                try save(png, as: "dashboard-triggers.png")
            }
        }
    }

    @Test func thePageRecoversWhenTheServerRestartsWithANewToken() async throws {
        try await AdminTestServer.run { server in
            try await registerDevice(server)
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#outbox")
                try await page.wait(until: "document.getElementById('connection').textContent === 'live'")
                let tokenInPage = "document.querySelector('meta[name=\"switchyard-admin-token\"]').content"
                #expect(try await page.evaluate(tokenInPage) == .string(server.token))

                // Stop, then serve the same app on the same port: a new token.
                let port = server.server.http.port
                await server.server.stop()
                try await page.wait(until: "document.getElementById('connection').textContent !== 'live'")
                let restarted = try await AppServer.start(
                    app: server.app, configuration: .init(port: port, dataDirectory: server.dataDirectory))
                #expect(restarted.adminToken.value != server.token)
                try await page.wait(until: "\(tokenInPage) === '\(restarted.adminToken.value)'")
                try await page.wait(until: "document.getElementById('connection').textContent === 'live'")
                #expect(try await page.evaluate("location.hash") == "#outbox")

                // Live again: a book added now shows on the device.
                _ = try await server.app.store.database("product").collection("book").insertOne(
                    try ExtendedJSON.parseDocument(Self.book))
                try await page.wait(
                    until:
                        #"document.querySelector('.phone[data-token="\#(Self.device)"] .notification .title')?.textContent === 'New book added'"#
                )
            }
        }
    }

    @Test func aFailedWatchBuildShowsItsErrorsUntilABuildSucceeds() async throws {
        try await AdminTestServer.run { server in
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#triggers")
                try await page.wait(until: "document.getElementById('connection').textContent === 'live'")
                #expect(try await page.evaluate("document.getElementById('build').hidden") == true)

                // What the watching supervisor writes when the compiler rejects a saved function.
                let error = "functions/sentTopicNotification.swift:12:9: error: cannot find 'titel' in scope"
                try BuildStatus(state: .failed, output: error).write(dataDirectory: server.dataDirectory)
                try await page.wait(until: "!document.getElementById('build').hidden")
                #expect(
                    try await page.evaluate("document.getElementById('build-output').textContent") == .string(error))
                #expect(
                    try await page.evaluate("document.getElementById('build-title').textContent")
                        .stringValue?.contains("the previous code keeps serving") == true)
                try save(try await page.screenshot(), as: "dashboard-build-failed.png")

                try BuildStatus(state: .building).write(dataDirectory: server.dataDirectory)
                try await page.wait(until: "document.getElementById('build').className === 'build building'")
                try BuildStatus(state: .succeeded).write(dataDirectory: server.dataDirectory)
                try await page.wait(until: "document.getElementById('build').hidden")
            }
        }
    }

    private static func javaScriptString(_ text: String) -> String {
        BSON.string(text).extendedJSON(mode: .relaxed)
    }
}
