import BSON

extension SwitchyardApp {
    /// The endpoint serving `method` on `route` in the configuration now loaded: nil when no endpoint has the
    /// route, `.otherMethods` when endpoints have it for other methods.
    package func endpoint(route: String, method: String) -> EndpointLookup {
        let endpoints = runtime.loaded.definition.endpoints.filter { $0.route == route && !$0.disabled }
        if let endpoint = endpoints.first(where: { $0.method.handles(method) }) { return .found(endpoint) }
        return endpoints.isEmpty ? .none : .otherMethods(endpoints.map(\.method.rawValue))
    }

    package enum EndpointLookup: Sendable {
        case found(HTTPEndpoint)
        case otherMethods([String])
        case none
    }

    /// The secret an endpoint's validation names, as loaded.
    package func endpointSecret(named name: String) -> Secret? {
        configuration.endpointSecrets[name]
    }

    /// Runs an endpoint's function for `request` as `user` (the system user when `runningAsSystem`): a callable
    /// gets App Services' request document as its one argument; either form sees `context.request` and shapes
    /// `response`. Private functions may serve endpoints, as in App Services; the run is recorded in
    /// `invocations` like a call.
    /// - Throws: `FunctionCallError`; its message never carries a secret value.
    package func run(
        endpoint: HTTPEndpoint, request: EndpointRequest, response: EndpointResponse, user: FunctionUser,
        runningAsSystem: Bool
    ) async throws(FunctionCallError) -> BSON {
        let name = endpoint.function
        let body = try callable(name)
        let loaded = runtime.loaded
        var user = user
        if !runningAsSystem, user.kind == .normal, endpoint.fetchCustomUserData {
            do {
                user.customData = try await customUserData(forUser: user.id)
            } catch {
                throw FunctionCallError(
                    code: .functionExecutionError,
                    message: "cannot read the custom user data of user '\(user.id)' for endpoint \(endpoint.route)")
            }
        }
        return try await runtime.run(
            FunctionRuntime.Origin(function: name, source: .endpoint), user: runningAsSystem ? .system : user,
            runningAsSystem: runningAsSystem, loaded: loaded,
            exchange: EndpointExchange(request: request, response: response), input: [BSON.document(request.document)],
            body
        ).value(of: name)
    }

    /// The user id an endpoint's script authentication function returns for `request` (run as the system).
    package func scriptUserId(function name: String, request: EndpointRequest) async throws(FunctionCallError)
        -> String
    {
        let body = try callable(name)
        let value = try await runtime.run(
            FunctionRuntime.Origin(function: name, source: .endpoint), user: .system, runningAsSystem: true,
            exchange: EndpointExchange(request: request, response: EndpointResponse()),
            input: [BSON.document(request.document)], body
        ).value(of: name)
        guard let id = value.stringValue, !id.isEmpty else {
            throw FunctionCallError(
                code: .functionExecutionError,
                message: "the authentication function '\(name)' returned no user id (a non-empty string)")
        }
        return id
    }
}
