import BSON
import Foundation
import Switchyard
import Testing

@testable import SwitchyardServer

/// Who may use the admin API, and what a server start leaves behind.
@Suite struct AdminAPITests {
    @Test func withoutATokenEveryAdminRouteIs401() async throws {
        try await AdminTestServer.run { server in
            for path in [
                "/app", "/triggers", "/triggers/events", "/invocations", "/invocations/events", "/databases", "/users",
                "/outbox", "/outbox/events", "/devices", "/faults", "/topics", "/build",
            ] {
                let response = try await server.get(path, token: .some(nil))
                #expect(response.status == 401, "\(path)")
                #expect(response.errorCode == "InvalidSession", "\(path)")
                #expect(response.document?["error"]?.stringValue?.contains("Authorization: Bearer") == true)
            }
            let write = try await server.post("/databases/product/collections/book/documents", "{}", token: .some(nil))
            #expect(write.status == 401)
            #expect(try await server.app.store.database("product").collection("book").countDocuments() == 0)
        }
    }

    @Test func aWrongTokenIs401() async throws {
        try await AdminTestServer.run { server in
            let other = AdminToken.generate().value
            for token in [other, String(server.token.dropLast()), server.token + "a", "Basic \(server.token)"] {
                let response = try await server.get("/triggers", token: .some(token))
                #expect(response.status == 401, "\(token)")
                #expect(response.errorCode == "InvalidSession")
            }
            let basic = try await server.client.get(
                url: server.baseURL + "/admin/v1/triggers", headers: ["Authorization": "Basic \(server.token)"])
            #expect(basic.status == 401)
        }
    }

    @Test func theRightTokenIsAccepted() async throws {
        try await AdminTestServer.run { server in
            let response = try await server.get("/app")
            #expect(response.status == 200)
            let app = try #require(response.document)
            #expect(app["appId"] == "switchyard-app")
            #expect(app["triggers"] == .int32(7) || app["triggers"] == .int64(7))
            #expect(app["functions"]?.arrayValue?.contains("sentTopicNotification") == true)
        }
    }

    @Test func requestsFromOtherMachinesAre403EvenWithTheToken() async throws {
        try await AdminTestServer.run { server in
            var router = Router()
            router.add(
                AdminAPI(app: server.app, token: server.server.adminToken, users: server.server.clientAPI.users)
                    .routes)
            for address in ["192.0.2.7", "10.0.0.1", "::ffff:192.0.2.7", "2001:db8::1", ""] {
                let request = ServerRequest(
                    method: "GET", path: "/admin/v1/triggers",
                    headers: ["authorization": "Bearer \(server.token)"], remoteAddress: address)
                let response = await router.respond(to: request)
                #expect(response.status == 403, "\(address)")
                guard case .bytes(let body) = response.body else {
                    Issue.record("not a plain body")
                    continue
                }
                let error = try ExtendedJSON.parseDocument(body)
                #expect(error["error_code"] == "Forbidden")
            }
            let local = ServerRequest(
                method: "GET", path: "/admin/v1/triggers", headers: ["authorization": "Bearer \(server.token)"],
                remoteAddress: "::1")
            #expect(await router.respond(to: local).status == 200)
        }
    }

    @Test func startingWritesTheTokenOwnerOnlyAndEachStartMakesANewOne() async throws {
        try await AdminTestServer.run { server in
            let path = "\(server.dataDirectory)/admin.token"
            let contents = try String(contentsOfFile: path, encoding: .utf8)
            #expect(contents == server.token + "\n")
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)

            let again = try await AppServer.start(
                app: server.app, configuration: .init(port: 0, dataDirectory: server.dataDirectory))
            #expect(again.adminToken.value != server.token)
            #expect(try String(contentsOfFile: path, encoding: .utf8) == again.adminToken.value + "\n")
            // Each server takes only its own token.
            let old = try await server.client.get(
                url: again.http.baseURL + "/admin/v1/app", headers: ["Authorization": "Bearer \(server.token)"])
            #expect(old.status == 401)
        }
    }
}
