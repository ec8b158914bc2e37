import BSON
import Testing

@testable import SwitchyardServer

/// How a method and path select a route, without a server in between: methods in any case, HEAD falling back to
/// GET, repeated slashes, methods no standard names, and the 405 that lists what a path allows.
@Suite struct RouterTests {
    private func router(_ routes: [(method: String, pattern: String)]) -> Router {
        var router = Router()
        for route in routes {
            router.add(
                route.method, route.pattern,
                { _, parameters in
                    let values = parameters.values.map { "\($0.name)=\($0.value)" }.joined(separator: ",")
                    return .text("\(route.method) \(route.pattern) \(values)")
                })
        }
        return router
    }

    /// What the router answers: the chosen route's text, or the error's status and message.
    private func answer(_ router: Router, _ method: String, _ path: String) async -> String {
        let response = await router.respond(to: ServerRequest(method: method, path: path))
        guard case .bytes(let bytes) = response.body else { return "no body" }
        guard response.status == 200 else {
            let error = (try? ExtendedJSON.parseDocument(bytes))?["error"]?.stringValue ?? ""
            return "\(response.status) \(error)"
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    @Test func methodsMatchInAnyCaseAndHeadFallsBackToGet() async {
        let router = router([("GET", "/books/{id}"), ("post", "/books/{id}"), ("HEAD", "/covers/{id}")])
        #expect(await answer(router, "GET", "/books/7") == "GET /books/{id} id=7")
        #expect(await answer(router, "get", "/books/7") == "GET /books/{id} id=7")
        #expect(await answer(router, "Post", "/books/7") == "post /books/{id} id=7")
        #expect(await answer(router, "HEAD", "/books/7") == "GET /books/{id} id=7")
        #expect(await answer(router, "HEAD", "/covers/7") == "HEAD /covers/{id} id=7")
        #expect(await answer(router, "GET", "/covers/7") == "405 GET is not allowed on /covers/7 (allowed: HEAD)")
    }

    @Test func aHeadRouteWinsOverTheGetFallbackOfTheSamePattern() async {
        let router = router([("GET", "/things"), ("HEAD", "/things")])
        #expect(await answer(router, "HEAD", "/things") == "HEAD /things ")
    }

    @Test func wrongMethodsListWhatThePathAllowsAndUnknownPathsAre404() async {
        let router = router([("PUT", "/items/{id}"), ("DELETE", "/items/{id}"), ("GET", "/items")])
        #expect(
            await answer(router, "PATCH", "/items/3") == "405 PATCH is not allowed on /items/3 (allowed: DELETE, PUT)")
        #expect(await answer(router, "GET", "/items/3/parts") == "404 no such endpoint: /items/3/parts")
        #expect(await answer(router, "GET", "/itemz") == "404 no such endpoint: /itemz")
    }

    @Test func repeatedAndTrailingSlashesSeparateNoEmptySegments() async {
        let router = router([("GET", "/"), ("GET", "/a/b/{c}"), ("GET", "/files/{rest...}")])
        #expect(await answer(router, "GET", "/") == "GET / ")
        #expect(await answer(router, "GET", "") == "GET / ")
        #expect(await answer(router, "GET", "//a///b/x/") == "GET /a/b/{c} c=x")
        #expect(await answer(router, "GET", "/files/") == "GET /files/{rest...} rest=")
        #expect(await answer(router, "GET", "/files//x//y") == "GET /files/{rest...} rest=x/y")
    }

    @Test func methodsLongerThanEightBytesAreMatchedWhole() async {
        let router = router([("VERSION-CONTROL", "/repo"), ("VERSION-X", "/repo")])
        #expect(await answer(router, "version-control", "/repo") == "VERSION-CONTROL /repo ")
        #expect(await answer(router, "VERSION-X", "/repo") == "VERSION-X /repo ")
        #expect(
            await answer(router, "VERSION-C", "/repo")
                == "405 VERSION-C is not allowed on /repo (allowed: VERSION-CONTROL, VERSION-X)")
        #expect(
            await answer(router, "VERSION-", "/repo")
                == "405 VERSION- is not allowed on /repo (allowed: VERSION-CONTROL, VERSION-X)")
    }

    @Test func literalsWinAndOfEqualRoutesTheLastAddedAnswers() async {
        let router = router([("GET", "/users/{id}"), ("GET", "/users/me"), ("GET", "/users/{name}")])
        #expect(await answer(router, "GET", "/users/me") == "GET /users/me ")
        #expect(await answer(router, "GET", "/users/ann") == "GET /users/{name} name=ann")
    }
}
