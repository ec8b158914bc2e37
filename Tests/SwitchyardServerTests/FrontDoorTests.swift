import Foundation
import Testing

@testable import SwitchyardServer

/// Heads the server cannot take (a request line or header block over its limits, a malformed line, an HTTP
/// version other than 1.x) are answered in the App Services error shape, as JSON, and the connection closes:
/// libmicrohttpd's own answers to them are HTML pages (or no answer at all), which no App Services client reads.
@Suite(.timeLimit(.minutes(1))) struct FrontDoorTests {
    private func serve(host: String = "127.0.0.1", maximumConnectionsPerPeer: Int = 256) throws -> HTTPServer {
        var router = Router()
        router.add("GET", "/hello") { _, _ in .json(["hello": "world"]) }
        router.add("POST", "/echo") { request, _ in .text("\(request.body.count)") }
        return try HTTPServer(
            configuration: .init(host: host, port: 0, maximumConnectionsPerPeer: maximumConnectionsPerPeer, threads: 2),
            router: router)
    }

    private static let longPath = "/" + String(repeating: "a", count: 20 * 1024)
    /// 100 KB of header fields.
    private static let largeFields = (0..<100).map { "X-Filler-\($0): \(String(repeating: "f", count: 1000))\r\n" }
        .joined()

    /// The answer to a head over a limit or malformed, and the connection closed after it.
    private func expectRefused(
        _ answer: RawAnswer?, status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let answer else {
            Issue.record("no answer", sourceLocation: sourceLocation)
            return
        }
        #expect(answer.status == status, sourceLocation: sourceLocation)
        #expect(answer.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
        #expect(answer.headers["connection"]?.lowercased() == "close", sourceLocation: sourceLocation)
        let body = answer.jsonObject
        #expect(
            body?["error_code"] as? String == code, "\(String(decoding: answer.body, as: UTF8.self))",
            sourceLocation: sourceLocation)
        #expect((body?["error"] as? String)?.isEmpty == false, sourceLocation: sourceLocation)
        #expect(body?["link"] is String, sourceLocation: sourceLocation)
    }

    /// The first request on a fresh connection.
    private func firstAnswer(_ server: HTTPServer, _ request: String) async throws -> RawAnswer? {
        let connection = try RawConnection(port: server.port)
        connection.send(request)
        return try await connection.receiveAnswer()
    }

    /// A request after one answered on the same kept-alive connection.
    private func secondAnswer(_ server: HTTPServer, _ request: String) async throws -> RawAnswer? {
        let connection = try RawConnection(port: server.port)
        connection.send("GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        let first = try await connection.receiveAnswer()
        #expect(first?.status == 200)
        connection.send(request)
        return try await connection.receiveAnswer()
    }

    @Test func aRequestLineOverTheLimitIsAnsweredURITooLong() async throws {
        let server = try serve()
        let answer = try await firstAnswer(server, "GET \(Self.longPath) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        expectRefused(answer, status: 414, code: "URITooLong")
        await server.stop()
    }

    @Test func headerFieldsOverTheLimitAreAnsweredHeaderFieldsTooLarge() async throws {
        let server = try serve()
        let answer = try await firstAnswer(
            server, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\(Self.largeFields)\r\n")
        expectRefused(answer, status: 431, code: "RequestHeaderFieldsTooLarge")
        await server.stop()
    }

    @Test(arguments: ["HELLO\r\n\r\n", "GET\r\n\r\n", "GET /hello\r\n\r\n", "\u{16}\u{3}\u{1}\u{2}\u{0}\u{1}"])
    func aGarbageRequestLineIsAnsweredBadRequest(_ line: String) async throws {
        let server = try serve()
        expectRefused(try await firstAnswer(server, line), status: 400, code: "BadRequest")
        await server.stop()
    }

    @Test func aMalformedHTTPVersionIsAnsweredBadRequest() async throws {
        let server = try serve()
        let answer = try await firstAnswer(server, "GET /hello HTTP/1\r\nHost: 127.0.0.1\r\n\r\n")
        expectRefused(answer, status: 400, code: "BadRequest")
        await server.stop()
    }

    @Test func anHTTPVersionOtherThanOneIsAnsweredNotSupported() async throws {
        let server = try serve()
        let answer = try await firstAnswer(server, "GET /hello HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n")
        expectRefused(answer, status: 505, code: "HTTPVersionNotSupported")
        await server.stop()
    }

    @Test func aMalformedHeaderFieldIsAnsweredBadRequest() async throws {
        let server = try serve()
        let answer = try await firstAnswer(server, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\n\r\n")
        expectRefused(answer, status: 400, code: "BadRequest")
        await server.stop()
    }

    @Test func aContentLengthThatIsNoNumberIsAnsweredBadRequest() async throws {
        let server = try serve()
        let answer = try await firstAnswer(
            server, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2x\r\n\r\n{}")
        expectRefused(answer, status: 400, code: "BadRequest")
        let huge = try await firstAnswer(
            server, "POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 99999999999999999999999\r\n\r\n{}")
        expectRefused(huge, status: 413, code: "PayloadTooLarge")
        await server.stop()
    }

    /// A kept-alive connection's later request is held to the same limits by the request handler, up to
    /// libmicrohttpd's own (larger) memory for a head.
    @Test func aLaterRequestOverTheLimitsIsAnsweredTheSame() async throws {
        let server = try serve()
        let path = "/" + String(repeating: "a", count: 10 * 1024)
        let longLine = try await secondAnswer(server, "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        expectRefused(longLine, status: 414, code: "URITooLong")
        let fields = (0..<10).map { "X-Filler-\($0): \(String(repeating: "f", count: 1000))\r\n" }.joined()
        let largeHead = try await secondAnswer(server, "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n")
        expectRefused(largeHead, status: 431, code: "RequestHeaderFieldsTooLarge")
        await server.stop()
    }

    /// What the front door lets through, libmicrohttpd serves: the largest head it takes, with as many fields as it
    /// takes, a head arriving in pieces, and the kept-alive requests after it.
    @Test func headsWithinTheLimitsAreServed() async throws {
        let server = try serve()
        let limits = HTTPServer.headLimits
        let start = "GET /hello HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        var fields = (0..<(limits.fields - 2)).map { "X-\($0): v\r\n" }.joined()
        let filler = limits.head - start.utf8.count - fields.utf8.count - "X-Filler: \r\n\r\n".utf8.count
        fields += "X-Filler: \(String(repeating: "f", count: filler))\r\n"
        let largest = start + fields + "\r\n"
        #expect(largest.utf8.count == limits.head)
        #expect(try await firstAnswer(server, largest)?.status == 200)

        let connection = try RawConnection(port: server.port)
        connection.send("GET /hel")
        try await Task.sleep(for: .milliseconds(50))
        connection.send("lo HTTP/1.1\r\nHost: 127.0.0.1\r\n")
        try await Task.sleep(for: .milliseconds(50))
        connection.send("\r\n")
        #expect(try await connection.receiveAnswer()?.status == 200)
        connection.send(largest)
        #expect(try await connection.receiveAnswer()?.status == 200)
        connection.send("POST /echo HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}")
        let echo = try await connection.receiveAnswer()
        #expect(echo?.status == 200)
        #expect(echo.map { String(decoding: $0.body, as: UTF8.self) } == "2")
        await server.stop()
    }

    /// Served on IPv6 loopback, with the per-peer limit kept: idle connections of `::1` give way to its real ones.
    @Test func anIPv6ServerKeepsThePerPeerLimit() async throws {
        let server = try serve(host: "::1", maximumConnectionsPerPeer: 8)
        let idle = try (0..<20).map { _ in try RawConnection(port: server.port, ipv6: true) }
        for _ in 0..<4 {
            let connection = try RawConnection(port: server.port, ipv6: true)
            connection.send("GET /hello HTTP/1.1\r\nHost: [::1]\r\n\r\n")
            #expect(try await connection.receiveAnswer()?.status == 200)
        }
        var closed = 0
        for _ in 0..<500 {
            closed = idle.filter(\.closedByServer).count
            if closed >= 20 - 8 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(closed >= 20 - 8)
        await server.stop()
    }
}
