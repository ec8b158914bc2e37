import BSON
import Foundation
import Testing

@testable import SwitchyardServer

@Suite struct DashboardTests {
    @Test func thePageCarriesTheTokenForBrowsersOnThisMachine() async throws {
        try await AdminTestServer.run { server in
            let page = try await server.client.get(url: server.baseURL + "/")
            #expect(page.status == 200)
            #expect(page.headers["Content-Type"] == "text/html; charset=utf-8")
            #expect(page.text.contains(#"<meta name="switchyard-admin-token" content="\#(server.token)">"#))
            #expect(!page.text.contains(Dashboard.tokenPlaceholder))
            #expect(page.headers["Cache-Control"] == "no-store")
            #expect(page.headers["X-Frame-Options"] == "DENY")
            #expect(page.headers["Referrer-Policy"] == "no-referrer")
            #expect(page.headers["Content-Security-Policy"]?.contains("frame-ancestors 'none'") == true)
            #expect(page.headers["Access-Control-Allow-Origin"] == nil)
            for host in ["localhost:\(server.server.http.port)", "127.0.0.1", "[::1]:80", "127.1.2.3:9"] {
                #expect(try await server.client.get(url: server.baseURL + "/", headers: ["Host": host]).status == 200)
            }
        }
    }

    @Test func pagesAskedForUnderAnotherNameAre403() async throws {
        try await AdminTestServer.run { server in
            // What a web page that rebound its own name to 127.0.0.1 would send.
            for host in [
                "evil.example", "evil.example:9090", "127.0.0.1.evil.example", "[::2]", "localhost.evil",
                "[::1].evil.example", "localhost:x", "127.0.0.1:80@evil.example", "[::1]:80@evil.example",
            ] {
                let page = try await server.client.get(url: server.baseURL + "/", headers: ["Host": host])
                #expect(page.status == 403, "\(host)")
                #expect(!page.text.contains(server.token))
                #expect(page.document?["error_code"] == "Forbidden")
                let script = try await server.client.get(
                    url: server.baseURL + "/dashboard/app.js", headers: ["Host": host])
                #expect(script.status == 403)
            }
        }
    }

    @Test func otherMachinesGet403() async throws {
        let token = AdminToken.generate()
        var router = Router()
        router.add(Dashboard(token: token).routes)
        for path in ["/", "/dashboard/app.js"] {
            let response = await router.respond(
                to: ServerRequest(
                    method: "GET", path: path, headers: ["host": "192.0.2.1:9090"], remoteAddress: "192.0.2.9"))
            #expect(response.status == 403, "\(path)")
            guard case .bytes(let body) = response.body else {
                Issue.record("not a plain body")
                continue
            }
            #expect(!String(decoding: body, as: UTF8.self).contains(token.value))
        }
    }

    @Test func theScriptStyleAndIconAreServedWithTheirTypes() async throws {
        try await AdminTestServer.run { server in
            let expected = [
                "app.js": "text/javascript; charset=utf-8", "style.css": "text/css; charset=utf-8",
                "favicon.svg": "image/svg+xml",
            ]
            for (file, type) in expected {
                let response = try await server.client.get(url: server.baseURL + "/dashboard/\(file)")
                #expect(response.status == 200, "\(file)")
                #expect(response.headers["Content-Type"] == type)
                #expect(response.headers["X-Content-Type-Options"] == "nosniff")
                #expect(!response.body.isEmpty)
            }
            let script = try await server.client.get(url: server.baseURL + "/dashboard/app.js")
            #expect(script.text.contains("/admin/v1"))
            #expect(!script.text.contains(server.token))
            for file in ["nope.js", "index.html", "..%2FPackage.swift"] {
                #expect(
                    try await server.client.get(url: server.baseURL + "/dashboard/\(file)").status == 404, "\(file)")
            }
        }
    }

    @Test func loopbackNames() {
        for host in ["localhost", "LOCALHOST:9090", "127.0.0.1", "127.0.0.1:80", "127.255.0.1", "[::1]", "[::1]:9090"] {
            #expect(LoopbackHost.names(Substring(host)), "\(host)")
        }
        for host in [
            "", "example.com", "127.0.0", "127.0.0.1.example.com", "128.0.0.1", "[::2]", "[::1", "::1x",
            "localhost.example",
            // Names that only start like this machine's: a lenient parse took them for it.
            "[::1].evil.example", "[::1]evil", "localhost:x", "localhost:", "localhost:80:80", "localhost:123456",
            "localhost:99999", "127.0.0.1:80@evil.example", "127.0.0.1:80/evil", "127.0.0.01", "127.0.0.+1",
            "127.0.0.1 ", "[::1]:", "[::1]:x",
        ] {
            #expect(!LoopbackHost.names(Substring(host)), "\(host)")
        }
    }
}
