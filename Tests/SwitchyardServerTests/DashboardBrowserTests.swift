import BSON
import Foundation
import Functions
import Messaging
import Switchyard
import TestSupport
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
                    "document.querySelector('#triggers tr[data-trigger=\"onBookPushNotification\"] td:nth-child(6)')"
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

    /// A device that registered its platform and subscribed to `books` itself.
    private func registerDevice(_ server: AdminTestServer, _ token: String, platform: String) async throws {
        let registered = try await server.client.put(
            url: server.baseURL + "/admin/v1/devices/\(token)", body: Array(#"{"platform": "\#(platform)"}"#.utf8),
            headers: ["Authorization": "Bearer \(server.token)", "Content-Type": "application/json"])
        #expect(registered.status == 200, "\(registered.text)")
        try await server.app.pushOutbox.topics.subscribe([token], to: "books")
    }

    static let androidDevice = "fcm-android-token-2"
    static let webDevice = "fcm-web-token-3"

    /// A book with a cover the page can load (the dashboard's own icon), in the tutorial's and the port's field.
    private static func book(title: String, cover: String) -> String {
        #"{"volumeInfo": {"title": "\#(title)", "authors": ["Frank Herbert"], "imageLinks": {"smallThumbnail": "\#(cover)", "thumbnail": "\#(cover)"}}}"#
    }

    @Test func phoneCardsShowTheViewOfTheirPlatform() async throws {
        try await AdminTestServer.run { server in
            try await registerDevice(server)
            try await registerDevice(server, Self.androidDevice, platform: "android")
            try await registerDevice(server, Self.webDevice, platform: "web")
            let cover = server.baseURL + "/dashboard/favicon.svg"
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#outbox")
                let phone = #"document.querySelector('.phone[data-token="\#(Self.device)"]')"#
                let android = #"document.querySelector('.phone[data-token="\#(Self.androidDevice)"]')"#
                try await page.wait(until: "\(phone) && \(android)")
                #expect(try await page.evaluate("\(android).dataset.platform") == "android")
                #expect(try await page.evaluate("\(phone).dataset.platform") == "")

                // The developer says the first token is an iPhone, on its card.
                try await page.evaluate(
                    """
                    const select = \(phone).querySelector('select.phone-platform');
                    select.value = 'ios';
                    select.dispatchEvent(new Event('change'));
                    """)
                try await page.wait(until: "\(phone).dataset.platform === 'ios'")
                #expect(server.app.pushOutbox.devices.platform(of: Self.device) == .ios)

                _ = try await server.app.store.database("product").collection("book").insertOne(
                    try ExtendedJSON.parseDocument(Self.book(title: "Dune", cover: cover)))
                let iosNotification = "\(phone).querySelector('.notification')"
                let androidNotification = "\(android).querySelector('.notification')"
                try await page.wait(until: "\(iosNotification) && \(androidNotification)")
                // The iPhone shows the aps alert, the image its service extension loads and the message id.
                #expect(
                    try await page.evaluate("\(iosNotification).querySelector('.title').textContent")
                        == "New book added")
                #expect(
                    try await page.evaluate("\(iosNotification).querySelector('img.thumbnail').src") == .string(cover))
                #expect(
                    try await page.evaluate("\(iosNotification).querySelector('.meta').textContent")
                        .stringValue?.hasPrefix("gcm.message_id ") == true)
                // Android its RemoteMessage notification with the picture.
                #expect(
                    try await page.evaluate("\(androidNotification).querySelector('.title').textContent")
                        == "New book added")
                #expect(
                    try await page.evaluate("\(androidNotification).querySelector('img.picture').src")
                        == .string(cover))
                // A browser the web push payload.
                let web = #"document.querySelector('.phone[data-token="\#(Self.webDevice)"] .notification')"#
                try await page.wait(until: web)
                #expect(try await page.evaluate("\(web).querySelector('.title').textContent") == "New book added")
                try await page.wait(until: "document.getAnimations().length === 0")
                try save(try await page.screenshot(), as: "dashboard-phones.png")
            }
        }
    }

    @Test func aShownNotificationIsNotRedrawnWhenTheCardsRefresh() async throws {
        try await AdminTestServer.run { server in
            try await registerDevice(server)
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#outbox")
                let phone = #"document.querySelector('.phone[data-token="\#(Self.device)"]')"#
                try await page.wait(until: phone)
                _ = try await server.app.store.database("product").collection("book").insertOne(
                    try ExtendedJSON.parseDocument(Self.book))
                let notification = "\(phone).querySelector('.notification')"
                try await page.wait(until: notification)

                // The devices list is polled and the outbox streams: the shown notification stays the same node
                // (so its arrival animation does not replay) through refreshes and a new message.
                try await page.evaluate(
                    """
                    window.kept = \(notification);
                    window.devicesLoads = 0;
                    const original = window.fetch;
                    window.fetch = (url, options) => {
                      if (String(url).endsWith('/devices')) window.devicesLoads += 1;
                      return original(url, options);
                    };
                    """)
                try await page.wait(until: "window.devicesLoads >= 2")
                #expect(try await page.evaluate("\(notification) === window.kept") == true)
                _ = try await server.app.store.database("product").collection("book").insertOne(
                    try ExtendedJSON.parseDocument(Self.book))
                try await page.wait(until: "\(phone).querySelectorAll('.notification').length === 2")
                try await page.wait(until: "window.devicesLoads >= 4")
                #expect(
                    try await page.evaluate("\(phone).querySelectorAll('.notification')[1] === window.kept") == true)
            }
        }
    }

    @Test func aTriggerRunInTheInvocationLogIsReplayedFromItsRow() async throws {
        try await AdminTestServer.run { server in
            #expect(try await server.post("/databases/product/collections/book/documents", Self.book).status == 201)
            try await server.settle()
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#logs")
                let row = #"document.querySelector('#invocations tr[data-function="sentTopicNotification"]')"#
                try await page.wait(until: row)
                try await page.evaluate(
                    "\(row).click(); \(row).nextElementSibling.querySelector('button.replay').click()")
                let report = "\(row).nextElementSibling.querySelector('.replay-report')"
                try await page.wait(until: "\(report) && !\(report).hidden")
                let text = try await page.evaluate("\(report).textContent").stringValue ?? ""
                #expect(text.hasPrefix("same\n"), "\(text)")
                #expect(text.contains("Dune has been added to the list"))
            }
        }
    }

    @Test func theTriggersTableSaysWhatFiresEachTrigger() async throws {
        try await AdminTestServer.run { server in
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#triggers")
                let row = #"document.querySelector('#triggers tr[data-trigger="onBookPushNotification"]')"#
                try await page.wait(until: row)
                #expect(
                    try await page.evaluate(
                        "document.querySelector('#tab-triggers thead').innerText.includes('Fires on')") == true)
                let source = try await page.evaluate("\(row).querySelector('td.source')?.textContent ?? ''")
                #expect(source == "product.book INSERT, DELETE")
                // How it delivers, and that it is alive and caught up.
                let ordering = try await page.evaluate("\(row).querySelector('td.type .ordering')?.textContent ?? ''")
                #expect(ordering == "ordered")
                let heartbeat = try await page.evaluate("\(row).querySelector('td.heartbeat')?.textContent ?? ''")
                #expect(heartbeat.stringValue?.hasSuffix("Z") == true, "\(heartbeat)")
                #expect(
                    try await page.evaluate(
                        "document.querySelector('#tab-triggers thead').innerText.includes('Heartbeat')") == true)
            }
        }
    }

    /// On a store shared by several nodes, each trigger's row says which node holds it, as `switchyard triggers`
    /// does.
    @Test func aTriggerOnASharedStoreShowsTheNodeHoldingIt() async throws {
        let postgres = try await offPool { try PostgreSQLServer.shared() }
        let database = "dashboard_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let url = try await offPool { try postgres.database(database) }
        defer { postgres.dropDatabase(database) }
        let openOnPostgreSQL: () async throws -> SwitchyardApp = {
            let configuration = try AppConfiguration.load(
                directory: AdminTestServer.appDirectory, environment: .development,
                registeredFunctions: functionRegistry.names, variables: [:])
            return try await SwitchyardApp.open(
                configuration: configuration, registry: functionRegistry, store: try .postgresql(url: url),
                options: .init(
                    storage: .memory, variables: [:],
                    triggers: TriggerRuntimeConfiguration(clock: UnschedulingClock(), node: "n1")))
        }
        try await AdminTestServer.run(app: openOnPostgreSQL) { server in
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#triggers")
                let holder =
                    #"document.querySelector('#triggers tr[data-trigger="onBookPushNotification"] .hint.node')?.textContent"#
                try await page.wait(until: holder)
                #expect(try await page.evaluate(holder) == "held by node n1")
            }
        }
    }

    @Test func timesShowTheDateInUTCAsTheCommandLinePrintsThem() async throws {
        try await AdminTestServer.run { server in
            _ = try await server.app.store.database("product").collection("book").insertOne(
                try ExtendedJSON.parseDocument(Self.book))
            try await server.settle()
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#triggers")
                // The trigger's last event, in the column headed so.
                let column =
                    "[...document.querySelectorAll('#tab-triggers thead th')].findIndex((th) => th.textContent === 'Last event') + 1"
                let lastEvent =
                    #"document.querySelector(`#triggers tr[data-trigger="onBookPushNotification"] td:nth-child(${\#(column)})`)"#
                try await page.wait(until: "\(lastEvent)?.textContent")
                let status = try await server.app.triggers.status(of: "onBookPushNotification")
                let time = try #require(status.lastEventTime)
                #expect(
                    try await page.evaluate("\(lastEvent).textContent")
                        == .string(UTCTimestamp.text(time, milliseconds: true)))

                try await page.evaluate("location.hash = '#outbox'")
                try await page.wait(until: "document.querySelector('#outbox tr td')")
                let sent = try #require(try await server.app.outbox().first)
                let sentTime = Date(timeIntervalSince1970: Double(sent.time.millisecondsSinceEpoch) / 1000)
                #expect(
                    try await page.evaluate("document.querySelector('#outbox tr td').textContent")
                        == .string(UTCTimestamp.text(sentTime, milliseconds: true)))
            }
        }
    }

    @Test func theDataTabOpensOnTheAppsOwnCollections() async throws {
        try await AdminTestServer.run { server in
            _ = try await server.app.store.database("product").collection("book").insertOne(
                try ExtendedJSON.parseDocument(Self.book))
            try await server.settle()
            try await withBrowser { browser in
                let page = try await browser.open(server.baseURL + "/#data")
                try await page.wait(until: "document.querySelector('#databases .database')")
                let databases = try await page.evaluate(
                    "[...document.querySelectorAll('#databases .database')].map((node) => node.textContent)")
                #expect(databases.arrayValue?.first == "product", "\(databases)")
                #expect(databases.arrayValue?.last == "local", "Switchyard's own data comes last: \(databases)")
                try await page.wait(until: "document.querySelector('#documents pre')")
                #expect(try await page.evaluate("document.getElementById('data-database').value") == "product")
                #expect(
                    try await page.evaluate("document.querySelector('#documents pre').textContent.includes('Dune')")
                        == true)
            }
        }
    }

    private static func javaScriptString(_ text: String) -> String {
        BSON.string(text).extendedJSON(mode: .relaxed)
    }
}
