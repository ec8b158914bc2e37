import BSON
import Testing

@testable import SwitchyardServer

/// Groups put their prefix before their patterns and their middleware around their handlers, the first outermost;
/// a middleware can answer in the handler's place, and a group added to another gets the outer one's prefix and
/// middleware outside its own.
@Suite struct RouterGroupTests {
    /// Adds an `X-Trail: name` header to the answer on its way out: the innermost adds the first.
    private struct Trail: RouterMiddleware {
        let name: String

        func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler) async throws
            -> ServerResponse
        {
            var response = try await next(request, parameters)
            response.headers.append(("X-Trail", name))
            return response
        }
    }

    private static func trail(_ response: ServerResponse) -> [String] {
        response.headers.filter { $0.name == "X-Trail" }.map(\.value)
    }

    /// Refuses requests without `X-Pass`, in the handler's place.
    private struct Gate: RouterMiddleware {
        func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler) async throws
            -> ServerResponse
        {
            guard request.headers["x-pass"] != nil else {
                throw APIError(status: 403, code: "Forbidden", message: "no pass")
            }
            return try await next(request, parameters)
        }
    }

    private static func text(_ response: ServerResponse) -> String {
        guard case .bytes(let bytes) = response.body else { return "no body" }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func middlewareWrapsHandlersFirstOutermostUnderThePrefix() async {
        var group = RouterGroup("/api", middleware: [Trail(name: "outer"), Trail(name: "inner")])
        group.add("GET", "/books/{id}") { _, parameters in .text("book \(parameters["id"] ?? "")") }
        var router = Router()
        router.add(group)
        let response = await router.respond(to: ServerRequest(method: "GET", path: "/api/books/7"))
        #expect(Self.text(response) == "book 7")
        #expect(Self.trail(response) == ["inner", "outer"])
        let unprefixed = await router.respond(to: ServerRequest(method: "GET", path: "/books/7"))
        #expect(unprefixed.status == 404)
    }

    @Test func aMiddlewareAnswersInTheHandlersPlace() async {
        var group = RouterGroup(middleware: [Gate()])
        group.add("GET", "/secret") { _, _ in .text("the secret") }
        var router = Router()
        router.add(group)
        let refused = await router.respond(to: ServerRequest(method: "GET", path: "/secret"))
        #expect(refused.status == 403)
        #expect((try? ExtendedJSON.parseDocument(Array(Self.text(refused).utf8)))?["error_code"] == "Forbidden")
        let passed = await router.respond(
            to: ServerRequest(method: "GET", path: "/secret", headers: ["x-pass": "yes"]))
        #expect(Self.text(passed) == "the secret")
    }

    @Test func aGroupInAGroupGetsTheOuterPrefixAndMiddlewareOutsideItsOwn() async {
        var inner = RouterGroup("/v1", middleware: [Trail(name: "inner")])
        inner.add("GET", "/ping") { _, _ in .text("pong") }
        inner.add("POST", "/ping") { _, _ in .text("posted") }
        var outer = RouterGroup("/api", middleware: [Trail(name: "outer")])
        outer.add(inner)
        outer.add("GET", "/plain") { _, _ in .text("plain") }
        #expect(inner.patterns == ["/ping"])
        var router = Router()
        router.add(outer)
        let ping = await router.respond(to: ServerRequest(method: "GET", path: "/api/v1/ping"))
        #expect(Self.text(ping) == "pong")
        #expect(Self.trail(ping) == ["inner", "outer"])
        let plain = await router.respond(to: ServerRequest(method: "GET", path: "/api/plain"))
        #expect(Self.trail(plain) == ["outer"])
    }
}
