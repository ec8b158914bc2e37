import BSON
import Foundation
import Messaging
import Synchronization
import Testing

@testable import SwitchyardServer

@Suite struct HTTPServerTests {
    private func serve(
        _ configure: (inout Router) -> Void, maximumBodySize: Int = 18 * 1024 * 1024,
        threads: Int = ProcessInfo.processInfo.activeProcessorCount
    ) throws -> HTTPServer {
        var router = Router()
        configure(&router)
        return try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: 0, maximumBodySize: maximumBodySize, threads: threads),
            router: router)
    }

    /// A server answering `GET /events` with `stream`, and a request for it that the server is answering already.
    private func serveEvents(_ stream: EventStream) async throws -> (HTTPServer, Task<HTTPResponse, any Error>) {
        let arrived = Atomic(false)
        let server = try serve { router in
            router.add("GET", "/events") { _, _ in
                arrived.store(true, ordering: .releasing)
                return .events(stream)
            }
        }
        let client = try HTTPClient()
        let response = Task { try await client.get(url: "\(server.baseURL)/events") }
        while !arrived.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        return (server, response)
    }

    @Test func routesByMethodAndPathWithParametersQueryHeadersAndBody() async throws {
        let server = try serve { router in
            router.add("POST", "/apps/{app}/echo") { request, parameters in
                .json([
                    "app": .string(parameters["app"] ?? ""), "q": .string(request.query["q"] ?? ""),
                    "header": .string(request.headers["x-thing"] ?? ""),
                    "body": .string(String(decoding: request.body, as: UTF8.self)),
                    "loopback": .bool(request.isLoopback),
                ])
            }
        }
        let client = try HTTPClient()
        let response = try await client.post(
            url: "\(server.baseURL)/apps/books/echo?q=a%20b", body: Array("hello".utf8), headers: ["X-Thing": "1"])
        #expect(response.status == 200)
        let document = try #require(response.json?.documentValue)
        #expect(document["app"] == "books")
        #expect(document["q"] == "a b")
        #expect(document["header"] == "1")
        #expect(document["body"] == "hello")
        #expect(document["loopback"] == true)
        await server.stop()
    }

    /// Header names reach handlers lower-cased whatever case the client wrote, the common ones (kept as literals)
    /// as well as any other.
    @Test func headerNamesAreReadLowerCasedInAnyCase() async throws {
        let server = try serve { router in
            router.add("GET", "/names") { request, _ in
                .json([
                    "authorization": .string(request.headers["authorization"] ?? ""),
                    "origin": .string(request.headers["origin"] ?? ""),
                    "accept": .string(request.headers["accept"] ?? ""),
                    "x-custom": .string(request.headers["x-custom"] ?? ""),
                    "token": .string(request.bearerToken ?? ""),
                ])
            }
        }
        let response = try await HTTPClient().get(
            url: "\(server.baseURL)/names",
            headers: ["AuThOrIzAtIoN": "bEaReR abc.def", "ORIGIN": "http://a", "Accept": "*/*", "X-CUSTOM": "1"])
        #expect(
            response.json?.documentValue == [
                "authorization": "bEaReR abc.def", "origin": "http://a", "accept": "*/*", "x-custom": "1",
                "token": "abc.def",
            ])
        await server.stop()
    }

    /// The peer's address is kept as the socket gave it and made text when a handler asks.
    @Test(arguments: ["127.0.0.1", "::1"]) func handlersSeeThePeersAddressAsText(host: String) async throws {
        var router = Router()
        router.add("GET", "/peer") { request, _ in
            .json(["address": .string(request.remoteAddress), "loopback": .bool(request.isLoopback)])
        }
        let server = try HTTPServer(configuration: .init(host: host, port: 0, threads: 1), router: router)
        let response = try await HTTPClient().get(url: "\(server.baseURL)/peer")
        #expect(response.status == 200)
        #expect(response.json?.documentValue == ["address": .string(host), "loopback": true])
        await server.stop()
    }

    @Test func headerBlocksUpTo8KBAreServedOnAKeptAliveConnectionAndRepeatedHeadersJoin() async throws {
        let server = try serve { router in
            router.add(
                "GET", "/headers",
                { request, _ in
                    .json([
                        "big": .string(request.headers["x-big"] ?? ""),
                        "repeated": .string(request.headers["x-repeated"] ?? ""),
                    ])
                })
        }
        let client = try HTTPClient()
        // One kept-alive connection: the memory a big request used is cleared for the next.
        for size in [7_000, 10, 7_500] {
            let response = try await client.get(
                url: "\(server.baseURL)/headers",
                headers: ["X-Big": String(repeating: "b", count: size), "X-Repeated": "one", "x-repeated": "two"])
            #expect(response.status == 200)
            #expect(response.json?.documentValue?["big"] == .string(String(repeating: "b", count: size)))
            #expect(response.json?.documentValue?["repeated"] == "one, two")
        }
        await server.stop()
    }

    @Test func unknownPathsAre404AndWrongMethods405InTheAppServicesErrorShape() async throws {
        let server = try serve { router in
            router.add("GET", "/things") { _, _ in .text("ok") }
        }
        let client = try HTTPClient()
        let missing = try await client.get(url: "\(server.baseURL)/nothing")
        #expect(missing.status == 404)
        let missingBody = try #require(missing.json?.documentValue)
        #expect(missingBody["error_code"] == "NotFound")
        #expect(missingBody["link"] == .string("http://127.0.0.1:\(server.port)/#logs"))
        #expect(missingBody["error"]?.stringValue?.contains("/nothing") == true)
        let wrong = try await client.post(url: "\(server.baseURL)/things", body: [])
        #expect(wrong.status == 405)
        #expect(wrong.json?.documentValue?["error_code"] == "MethodNotAllowed")
        await server.stop()
    }

    @Test func literalSegmentsWinOverParametersAndRestCapturesTheTail() async throws {
        let server = try serve { router in
            router.add("GET", "/users/{id}") { _, parameters in .text("user \(parameters["id"] ?? "")") }
            router.add("GET", "/users/me") { _, _ in .text("me") }
            router.add("GET", "/static/{path...}") { _, parameters in .text("file \(parameters["path"] ?? "")") }
        }
        let client = try HTTPClient()
        #expect(try await client.get(url: "\(server.baseURL)/users/me").text == "me")
        #expect(try await client.get(url: "\(server.baseURL)/users/42").text == "user 42")
        #expect(try await client.get(url: "\(server.baseURL)/static/css/app.css").text == "file css/app.css")
        await server.stop()
    }

    @Test func bodiesOverTheLimitGet413AndTheServerKeepsServing() async throws {
        let server = try serve(
            { router in router.add("POST", "/upload") { request, _ in .text("\(request.body.count)") } },
            maximumBodySize: 1024)
        let client = try HTTPClient()
        let tooLarge = try await client.post(url: "\(server.baseURL)/upload", body: [UInt8](repeating: 1, count: 4096))
        #expect(tooLarge.status == 413)
        #expect(tooLarge.json?.documentValue?["error_code"] == "PayloadTooLarge")
        let fits = try await client.post(url: "\(server.baseURL)/upload", body: [UInt8](repeating: 1, count: 1024))
        #expect(fits.status == 200)
        #expect(fits.text == "1024")
        await server.stop()
    }

    @Test func thrownAPIErrorsRenderTheirStatusAndCode() async throws {
        let server = try serve { router in
            router.add("GET", "/secret") { _, _ in
                throw APIError(status: 401, code: "InvalidSession", message: "invalid session: token expired")
            }
        }
        let response = try await HTTPClient().get(url: "\(server.baseURL)/secret")
        #expect(response.status == 401)
        let body = try #require(response.json?.documentValue)
        #expect(body["error_code"] == "InvalidSession")
        #expect(body["error"] == "invalid session: token expired")
        await server.stop()
    }

    @Test func manyConcurrentRequestsAreAllAnswered() async throws {
        let server = try serve { router in
            router.add("GET", "/n/{n}") { _, parameters in .text(parameters["n"] ?? "") }
        }
        let client = try HTTPClient()
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for n in 0..<200 {
                group.addTask { (n, try await client.get(url: "\(server.baseURL)/n/\(n)").text) }
            }
            var answers: [Int: String] = [:]
            for try await (n, text) in group { answers[n] = text }
            return answers
        }
        #expect(answers.count == 200)
        #expect(answers.allSatisfy { "\($0.key)" == $0.value })
        await server.stop()
    }

    @Test func eventStreamsDeliverEventsAsTheyAreSentAndEndWhenFinished() async throws {
        let stream = EventStream()
        let server = try serve { router in
            router.add("GET", "/events") { _, _ in .events(stream) }
        }
        let client = try HTTPClient()
        async let response = client.get(url: "\(server.baseURL)/events")
        stream.send(event: "invocation", id: "1", data: "{\"a\":1}")
        stream.send(data: "two\nlines")
        stream.finish()
        let result = try await response
        #expect(result.headers["Content-Type"] == "text/event-stream")
        #expect(result.text == "id: 1\nevent: invocation\ndata: {\"a\":1}\n\ndata: two\ndata: lines\n\n")
        await server.stop()
    }

    @Test func stoppingEndsOpenEventStreams() async throws {
        let stream = EventStream()
        let ended = Mutex(false)
        stream.onTermination { ended.withLock { $0 = true } }
        let (server, response) = try await serveEvents(stream)
        stream.send(data: "first")
        await server.stop()
        let result = try await response.value
        #expect(result.text == "data: first\n\n")
        #expect(ended.withLock { $0 })
    }

    @Test func aConnectionResetAnswersNothingAndTheServerKeepsServing() async throws {
        let server = try serve { router in
            router.add("POST", "/flaky") { _, _ in .connectionReset }
            router.add("GET", "/fine") { _, _ in .text("fine") }
        }
        let client = try HTTPClient()
        await #expect(throws: HTTPClientError.self) {
            try await client.post(url: "\(server.baseURL)/flaky", body: Array("{}".utf8))
        }
        #expect(try await client.get(url: "\(server.baseURL)/fine").text == "fine")
        await server.stop()
    }

    @Test func stoppingFreesThePortForTheNextServer() async throws {
        let first = try serve { router in router.add("GET", "/which") { _, _ in .text("first") } }
        let port = first.port
        await first.stop()
        let second = try HTTPServer(
            configuration: .init(host: "127.0.0.1", port: port),
            router: {
                var router = Router()
                router.add("GET", "/which") { _, _ in .text("second") }
                return router
            }())
        #expect(try await HTTPClient().get(url: "\(second.baseURL)/which").text == "second")
        await second.stop()
    }

    @Test func aTakenPortIsAClearError() async throws {
        let first = try serve { _ in }
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: .init(host: "127.0.0.1", port: first.port), router: Router())
        }
        #expect(throws: HTTPServerError.self) {
            try HTTPServer(configuration: .init(host: "no-such-host.invalid", port: 0), router: Router())
        }
        await first.stop()
    }

    /// Servers stopped together while their handlers still need Swift's cooperative pool: stopping waits for the
    /// handlers without holding a pool thread. (Stopping on the pool once took all of its threads, one per server,
    /// and the handlers, and with them the whole process, waited forever.)
    @Test func serversStoppedWhileHandlersNeedThePoolAllStop() async throws {
        let gate = Gate()
        let arrived = Atomic(0)
        let count = ProcessInfo.processInfo.activeProcessorCount + 2
        let servers = try (0..<count).map { _ in
            try serve { router in
                router.add("GET", "/slow") { _, _ in
                    arrived.add(1, ordering: .relaxed)
                    // The answer comes from a task of the global pool, once the gate opens.
                    return .text(
                        await Task.detached {
                            await gate.wait()
                            return "passed"
                        }.value)
                }
            }
        }
        let client = try HTTPClient()
        let answers = Task {
            try await withThrowingTaskGroup(of: Int.self) { group in
                for server in servers { group.addTask { try await client.get(url: "\(server.baseURL)/slow").status } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        while arrived.load(ordering: .relaxed) < count { try await Task.sleep(for: .milliseconds(5)) }
        // Opened from a thread of its own once every stop is under way.
        Thread.detachNewThread {
            usleep(200_000)
            gate.open()
        }
        // A grace far past the gate's opening: the suite's other tests may keep the pool busy for seconds, and what
        // is tested is that the stops leave the handlers a pool thread, not how quickly the pool gets to them.
        await withTaskGroup(of: Void.self) { group in
            for server in servers { group.addTask { await server.stop(grace: .seconds(30)) } }
        }
        #expect(try await answers.value == Array(repeating: 200, count: count))
    }

    @Test func handlersThatNeverWaitAnswerAndTheirErrorsRender() async throws {
        let server = try serve { router in
            router.add(
                "GET", "/now/{what}",
                { request, parameters in
                    .text("\(parameters["what"] ?? "") \(request.query["q"] ?? "")")
                })
            router.add(
                "GET", "/refused",
                { _, _ in
                    throw APIError(status: 403, code: "Forbidden", message: "not for you")
                })
            router.add("GET", "/broken", { _, _ in throw CancellationError() })
        }
        let client = try HTTPClient()
        #expect(try await client.get(url: "\(server.baseURL)/now/here?q=x").text == "here x")
        let refused = try await client.get(url: "\(server.baseURL)/refused")
        #expect(refused.status == 403)
        #expect(refused.json?.documentValue?["error_code"] == "Forbidden")
        let broken = try await client.get(url: "\(server.baseURL)/broken")
        #expect(broken.status == 500)
        #expect(broken.json?.documentValue?["link"] == .string("http://127.0.0.1:\(server.port)/#logs"))
        await server.stop()
    }

    @Test func repeatedSlashesAndAnEmptyRestStillMatch() async throws {
        let server = try serve { router in
            router.add("GET", "/users/{id}/books") { _, parameters in .text("books of \(parameters["id"] ?? "")") }
            router.add("GET", "/static/{path...}") { _, parameters in .text("file [\(parameters["path"] ?? "-")]") }
        }
        let client = try HTTPClient()
        #expect(try await client.get(url: "\(server.baseURL)//users//7/books/").text == "books of 7")
        #expect(try await client.get(url: "\(server.baseURL)/static").text == "file []")
        #expect(try await client.get(url: "\(server.baseURL)/static/a//b").text == "file [a/b]")
        #expect(try await client.get(url: "\(server.baseURL)/users/7").status == 404)
        await server.stop()
    }

    @Test func anIdleEventStreamSendsKeepAliveComments() async throws {
        let stream = EventStream(keepAliveInterval: 0.05)
        // Sent once the stream is being answered, so that it then idles for several keep-alive intervals.
        let (server, response) = try await serveEvents(stream)
        stream.send(data: "first")
        try await Task.sleep(for: .milliseconds(300))
        stream.send(data: "second")
        stream.finish()
        let text = try await response.value.text
        // Comments while idle (however the sending and the timer interleave), the events in order.
        #expect(text.contains(": keep-alive\n\n"))
        #expect(
            text.components(separatedBy: "\n\n").filter { !$0.isEmpty && !$0.hasPrefix(":") } == [
                "data: first", "data: second",
            ])
        await server.stop()
    }

    /// Open streams wait without a thread of their own: with one server thread and several streams open, the
    /// server still answers, and each stream still gets its events.
    @Test func openEventStreamsDoNotHoldUpTheServer() async throws {
        let streams = (0..<4).map { _ in EventStream() }
        let server = try serve(
            { router in
                router.add("GET", "/events/{n}") { _, parameters in .events(streams[Int(parameters["n"] ?? "") ?? 0]) }
                router.add("GET", "/fine") { _, _ in .text("fine") }
            }, threads: 1)
        var readers: [LiveEventReader] = []
        for n in streams.indices {
            readers.append(try await LiveEventReader.open(port: server.port, path: "/events/\(n)", token: nil))
        }
        #expect(try await HTTPClient().get(url: "\(server.baseURL)/fine").text == "fine")
        for (n, stream) in streams.enumerated() { stream.send(event: "number", data: "\(n)") }
        for (n, reader) in readers.enumerated() {
            var events = reader.events.makeAsyncIterator()
            #expect(await events.next() == LiveEventReader.Event(name: "number", data: "\(n)"))
            reader.stop()
        }
        await server.stop()
    }
}
