import BSON
import Foundation
import Messaging
import Synchronization
import TestSupport
import Testing

@Suite(.timeLimit(.minutes(1))) struct HTTPClientTests {
    @Test func echoesMethodPathHeadersAndBody() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        let response = try await client.send(
            HTTPRequest(
                method: .put, url: "\(server.url)/echo?x=1", headers: ["X-Book": "Dune", "Content-Type": "text/plain"],
                body: Array("hello".utf8)))
        #expect(response.status == 200)
        let echo = try #require(response.json?.documentValue)
        #expect(echo["method"] == "PUT")
        #expect(echo["path"] == "/echo")
        #expect(echo["body"] == "hello")
        #expect(echo.value(atPath: "headers.x-book") == "Dune")
        #expect(echo.value(atPath: "headers.content-type") == "text/plain")
        // Header lookup ignores case; repeated headers keep their order.
        #expect(response.headers["Content-Type"] == "application/json; charset=utf-8")
        #expect(response.headers["CONTENT-type"] == "application/json; charset=utf-8")
        #expect(response.headers.values(for: "x-echo") == ["one", "two"])
    }

    @Test func conveniencesUseTheirMethods() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        let get = try await client.get(url: "\(server.url)/echo")
        #expect(get.json?.documentValue?["method"] == "GET")
        let delete = try await client.delete(url: "\(server.url)/echo")
        #expect(delete.json?.documentValue?["method"] == "DELETE")
        let post = try await client.post(url: "\(server.url)/echo", body: [1, 2, 3])
        #expect(post.json?.documentValue?["bodyLength"] == .int32(3))
        #expect(post.json?.documentValue?.value(atPath: "headers.content-type") == nil)
        let head = try await client.send(HTTPRequest(method: .head, url: "\(server.url)/echo"))
        #expect(head.status == 200 && head.body.isEmpty)
    }

    @Test func postsDocumentsAsRelaxedJSONAndReadsJSONReplies() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        let response = try await client.post(
            url: "\(server.url)/echo", body: ["title": "Dune", "year": 1965, "price": 9.5])
        let echo = try #require(response.json?.documentValue)
        #expect(echo["body"] == #"{"title":"Dune","year":1965,"price":9.5}"#)
        #expect(echo.value(atPath: "headers.content-type") == "application/json")
        #expect(response.isJSON)

        let raw = try await client.post(url: "\(server.url)/raw", body: Array("{}".utf8))
        #expect(!raw.isJSON && raw.json == nil && raw.text == "{}")
    }

    @Test func anyStatusIsAResponse() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        let response = try await client.get(url: "\(server.url)/echo?status=418")
        #expect(response.status == 418 && !response.isSuccess)
        #expect(try await client.get(url: "\(server.url)/echo?status=503").status == 503)
    }

    @Test func redirectsAreFollowedOnlyWhenAsked() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        let unfollowed = try await client.get(url: "\(server.url)/redirect")
        #expect(unfollowed.status == 302 && unfollowed.headers["location"] == "/echo")
        let followed = try await client.get(url: "\(server.url)/redirect", followRedirects: true)
        #expect(followed.status == 200 && followed.json?.documentValue?["path"] == "/echo")
    }

    @Test func slowServersTimeOut() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        await #expect {
            try await client.get(url: "\(server.url)/echo?delay=1500", timeout: .milliseconds(100))
        } throws: { error in
            guard case .timedOut(let message) = error as? HTTPClientError else { return false }
            return message.hasPrefix("GET \(server.url)/echo: ")
        }
    }

    @Test func closedPortsCannotConnectAndMessagesKeepSecretsOut() async throws {
        let client = try HTTPClient()
        let port = closedLoopbackPort()
        let request = HTTPRequest(
            url: "http://user:hunter2@127.0.0.1:\(port)/hook?key=s3cret",
            headers: ["Authorization": "Bearer top-secret-token"])
        await #expect {
            try await client.send(request)
        } throws: { error in
            guard case .couldNotConnect(let message) = error as? HTTPClientError else { return false }
            let text = "\(error)"
            return message.hasPrefix("GET http://127.0.0.1:\(port)/hook: ") && !text.contains("top-secret-token")
                && !text.contains("hunter2") && !text.contains("s3cret")
        }
    }

    @Test func badRequestsAreRefusedBeforeSending() async throws {
        let client = try HTTPClient()
        await #expect(throws: HTTPClientError.invalidRequest("the value of header Authorization contains a line break"))
        {
            try await client.send(
                HTTPRequest(url: "http://127.0.0.1:1/", headers: ["Authorization": "Bearer x\r\nX-Evil: 1"]))
        }
        await #expect(throws: HTTPClientError.invalidRequest("ftp://example.com/file is not an http or https URL")) {
            try await client.get(url: "ftp://example.com/file")
        }
        await #expect(throws: HTTPClientError.invalidRequest("\"GET ME\" is not an HTTP method")) {
            try await client.send(HTTPRequest(method: "GET ME", url: "http://127.0.0.1:1/"))
        }
    }

    @Test func fiveMegabyteBodiesGoBothWays() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        // Every byte value, in an order that no short repeat would survive unnoticed.
        let body = (0..<5_000_000).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 13) }
        let response = try await client.post(url: "\(server.url)/raw", body: body)
        #expect(response.status == 200)
        #expect(response.body.count == body.count)
        #expect(response.body == body)
    }

    @Test func responsesLargerThanTheLimitFail() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        await #expect {
            try await client.send(
                HTTPRequest(
                    method: .post, url: "\(server.url)/raw", body: Array(repeating: 7, count: 10_000),
                    maximumResponseBytes: 1000))
        } throws: { error in
            guard case .other(_, let message) = error as? HTTPClientError else { return false }
            return message.hasSuffix("the response body is larger than 1000 bytes")
        }
    }

    @Test func connectionsAreReused() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        for _ in 0..<5 {
            #expect(try await client.get(url: "\(server.url)/echo").status == 200)
        }
        #expect(server.state.connections.load(ordering: .relaxed) == 1)
    }

    /// The transfer loop starts with the first request: requests that race to be first all run on one loop,
    /// whose count covers every connection the server saw; a client that never sends goes away cleanly.
    @Test func concurrentFirstRequestsShareOneTransferLoop() async throws {
        let server = try TestHTTPServer()
        _ = try HTTPClient()
        let client = try HTTPClient()
        #expect(client.connectionsOpened == 0)
        try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<20 {
                group.addTask { try await client.get(url: "\(server.url)/gate") }
            }
            while server.state.arrivals.load(ordering: .relaxed) < 20 {
                try await Task.sleep(for: .milliseconds(5))
            }
            server.openGate()
            var passed = 0
            for try await response in group where response.status == 200 && response.text == "passed" {
                passed += 1
            }
            #expect(passed == 20)
        }
        #expect(client.connectionsOpened == server.state.connections.load(ordering: .relaxed))
        #expect(client.connectionsOpened >= 1)
    }

    /// More requests in flight than the cooperative pool has threads: all 50 reach the server at once, and a
    /// cooperative task still runs while they wait. Blocking calls on the pool would stall at its width.
    @Test func fiftyConcurrentRequestsLeaveTheCooperativePoolFree() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        try await withThrowingTaskGroup(of: HTTPResponse.self) { group in
            for _ in 0..<50 {
                group.addTask { try await client.get(url: "\(server.url)/gate") }
            }
            while server.state.arrivals.load(ordering: .relaxed) < 50 {
                try await Task.sleep(for: .milliseconds(5))
            }
            let progress = await Task.detached { (1...1000).reduce(0, +) }.value
            #expect(progress == 500_500)
            server.openGate()
            var passed = 0
            for try await response in group where response.status == 200 && response.text == "passed" {
                passed += 1
            }
            #expect(passed == 50)
        }
    }

    @Test func cancellingTheTaskAbortsTheRequest() async throws {
        let server = try TestHTTPServer()
        let client = try HTTPClient()
        let request = Task { try await client.get(url: "\(server.url)/gate") }
        while server.state.arrivals.load(ordering: .relaxed) < 1 {
            try await Task.sleep(for: .milliseconds(5))
        }
        request.cancel()
        await #expect {
            try await request.value
        } throws: { error in
            guard case .cancelled(let message) = error as? HTTPClientError else { return false }
            return message == "GET \(server.url)/gate: the waiting task was cancelled"
        }
        server.openGate()
    }
}
