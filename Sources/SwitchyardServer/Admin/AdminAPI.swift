import BSON
import Switchyard

/// The admin API under `/admin/v1`: what the dashboard (and scripts, with the token from `admin.token`) use to
/// watch and steer a running app — triggers, invocations, data, users and server API keys, the outbox and fault
/// injection.
///
/// Every route answers only clients on this machine (403 `Forbidden` otherwise) that send
/// `Authorization: Bearer <token>` with the token made at start (401 `InvalidSession` otherwise). Bodies and
/// answers are relaxed Extended JSON; filters and sorts in query strings are Extended JSON too.
///
/// ```swift
/// var router = Router()
/// router.add(AdminAPI(app: app, token: AdminToken.generate(), users: clientAPI.users).routes)
/// ```
package struct AdminAPI: Sendable {
    package static let basePath = "/admin/v1"

    let app: SwitchyardApp
    let token: AdminToken
    /// The client API's users (the admin API lists and deletes them).
    let users: UserDirectory
    /// Where `serve --watch` records its builds (`build.json`); nil for an app without a data directory.
    let dataDirectory: String?

    package init(app: SwitchyardApp, token: AdminToken, users: UserDirectory, dataDirectory: String? = nil) {
        self.app = app
        self.token = token
        self.users = users
        self.dataDirectory = dataDirectory
    }

    /// Every admin route under `basePath`, each behind the loopback and token checks.
    package var routes: RouterGroup {
        var routes = RouterGroup(
            Self.basePath, middleware: [LoopbackOnly("the admin API"), AdminAccess(token: token)])
        addAppRoutes(to: &routes)
        addTriggerRoutes(to: &routes)
        addInvocationRoutes(to: &routes)
        addLogForwarderRoutes(to: &routes)
        addCollectionRoutes(to: &routes)
        addUserRoutes(to: &routes)
        addAPIKeyRoutes(to: &routes)
        addOutboxRoutes(to: &routes)
        addFaultRoutes(to: &routes)
        addBuildRoutes(to: &routes)
        return routes
    }

    private func addAppRoutes(to routes: inout RouterGroup) {
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
