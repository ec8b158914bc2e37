import BSON
import Switchyard

/// The admin API under `/admin/v1`: what the dashboard (and scripts, with the token from `admin.token`) use to
/// watch and steer a running app — triggers, invocations, data, users, the outbox and fault injection.
///
/// Every route answers only clients on this machine (403 `Forbidden` otherwise) that send
/// `Authorization: Bearer <token>` with the token made at start (401 `InvalidSession` otherwise). Bodies and
/// answers are relaxed Extended JSON; filters and sorts in query strings are Extended JSON too.
///
/// ```swift
/// var router = Router()
/// router.add(AdminAPI(app: app, token: AdminToken.generate(), users: clientAPI.users).router)
/// ```
public struct AdminAPI: Sendable {
    public static let basePath = "/admin/v1"

    let app: SwitchyardApp
    let token: AdminToken
    /// The client API's users (the admin API lists and deletes them).
    let users: UserDirectory
    /// Where `serve --watch` records its builds (`build.json`); nil for an app without a data directory.
    let dataDirectory: String?

    public init(app: SwitchyardApp, token: AdminToken, users: UserDirectory, dataDirectory: String? = nil) {
        self.app = app
        self.token = token
        self.users = users
        self.dataDirectory = dataDirectory
    }

    /// Every admin route, each behind the loopback and token checks.
    public var router: Router {
        var routes = AdminRoutes(token: token)
        addAppRoutes(to: &routes)
        addTriggerRoutes(to: &routes)
        addInvocationRoutes(to: &routes)
        addCollectionRoutes(to: &routes)
        addUserRoutes(to: &routes)
        addOutboxRoutes(to: &routes)
        addFaultRoutes(to: &routes)
        addBuildRoutes(to: &routes)
        return routes.router
    }

    private func addAppRoutes(to routes: inout AdminRoutes) {
        let app = self.app
        routes.add("GET", "/app") { _, _ in
            let definition = app.configuration.definition
            return .json([
                "appId": definition.appId.map { .string($0) } ?? .null,
                "functions": .array(app.registry.names.sorted().map { .string($0) }),
                "triggers": .int64(Int64(definition.triggers.count)),
            ])
        }
    }
}

/// Admin routes being assembled: each handler runs only after the request passed `AdminAccess`.
struct AdminRoutes {
    let token: AdminToken
    private(set) var router = Router()

    init(token: AdminToken) {
        self.token = token
    }

    mutating func add(_ method: String, _ path: String, _ handler: @escaping Router.Handler) {
        let token = self.token
        router.add(method, AdminAPI.basePath + path) { request, parameters in
            try AdminAccess.authorize(request, token: token)
            do {
                return try await handler(request, parameters)
            } catch {
                throw AdminAPI.apiError(error)
            }
        }
    }
}

/// Who may use the admin API: loopback clients holding the token.
enum AdminAccess {
    static func authorize(_ request: ServerRequest, token: AdminToken) throws(APIError) {
        guard request.isLoopback else {
            throw APIError(
                status: 403, code: "Forbidden",
                message: "the admin API answers only clients on this machine (loopback), not \(request.remoteAddress)")
        }
        guard let given = request.bearerToken else {
            throw APIError(
                status: 401, code: "InvalidSession",
                message:
                    "the admin API needs 'Authorization: Bearer <token>' with the token switchyard serve printed (also in <data-dir>/admin.token)"
            )
        }
        guard token.matches(given) else {
            throw APIError(
                status: 401, code: "InvalidSession",
                message:
                    "invalid admin token: use the one this run of switchyard serve printed (it changes at every start)")
        }
    }
}
