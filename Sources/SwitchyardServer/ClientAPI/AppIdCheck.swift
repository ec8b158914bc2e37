/// Client API routes under `/app/{app}` answer only for the served app's id: others get 404 `AppNotFound`, as
/// App Services answers an unknown app.
struct AppIdCheck: RouterMiddleware {
    let appId: String

    nonisolated(nonsending) func handle(_ request: ServerRequest, _ parameters: RouteParameters, next: Router.Handler)
        async throws -> ServerResponse
    {
        if let app = parameters["app"], app != appId { throw APIError.appNotFound(app) }
        return try await next(request, parameters)
    }
}

extension APIError {
    static func appNotFound(_ app: String) -> APIError {
        APIError(status: 404, code: "AppNotFound", message: "cannot find app using Client App ID '\(app)'")
    }
}
