/// Routes that share a path prefix and the middleware around their handlers, as hummingbird's `RouterGroup`: each
/// part of the server (client API, admin API, FCM emulator, dashboard) declares its routes and their wrapping
/// (CORS, app id, tokens, error rendering, loopback checks) as one group, and the server adds the groups to its
/// `Router`.
///
/// ```swift
/// var admin = RouterGroup("/admin/v1", middleware: [LoopbackOnly("the admin API"), AdminAccess(token: token)])
/// admin.add("GET", "/app") { _, _ in .json(["name": "books"]) }
/// router.add(admin)
/// ```
package struct RouterGroup: Sendable {
    struct Route: Sendable {
        let method: String
        /// The whole pattern, prefix included.
        let pattern: String
        /// The handler inside the group's middleware.
        let handler: Router.Handler
    }

    let prefix: String
    let middleware: [any RouterMiddleware]
    private(set) var routes: [Route] = []

    /// - Parameters:
    ///   - prefix: put before every pattern added (`/api/client/v2.0`); empty for none.
    ///   - middleware: around every handler added, the first outermost.
    package init(_ prefix: String = "", middleware: [any RouterMiddleware] = []) {
        self.prefix = prefix
        self.middleware = middleware
    }

    /// A route for `method` on `prefix + pattern` (see `Router` for patterns), its handler inside the middleware.
    package mutating func add(_ method: String, _ pattern: String, _ handler: @escaping Router.Handler) {
        routes.append(Route(method: method, pattern: prefix + pattern, handler: wrapped(handler)))
    }

    /// Every route of `group` in this one: this group's prefix before its patterns, this group's middleware around
    /// its own.
    package mutating func add(_ group: RouterGroup) {
        for route in group.routes {
            routes.append(Route(method: route.method, pattern: prefix + route.pattern, handler: wrapped(route.handler)))
        }
    }

    /// `handler` inside the group's middleware, the first outermost. A plain loop: handed through a generic
    /// function such as `reduce`, a handler comes back inside reabstraction thunks, each one more async call (a frame
    /// and a switch back to the executor) for every request.
    private func wrapped(_ handler: @escaping Router.Handler) -> Router.Handler {
        var wrapped = handler
        for middleware in middleware.reversed() { wrapped = middleware.wrapping(wrapped) }
        return wrapped
    }

    /// The patterns of the group's routes, without the prefix, each once, in the order added.
    var patterns: [String] {
        var seen: Set<String> = []
        return routes.map { String($0.pattern.dropFirst(prefix.count)) }.filter { seen.insert($0).inserted }
    }
}
