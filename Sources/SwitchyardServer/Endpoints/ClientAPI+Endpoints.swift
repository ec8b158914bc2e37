import BSON
import Foundation
import Messaging
import Switchyard

extension ClientAPI {
    /// Where App Services served an app's custom HTTPS endpoints: `/app/{app id}/endpoint{route}`.
    package static let endpointPath = "/app/{app}/endpoint"
    static let endpointMethods = ["GET", "POST", "PUT", "PATCH", "DELETE"]

    /// The app's custom HTTPS endpoints, through the client API's middleware (CORS, App Services' error bodies,
    /// the app id check). Which endpoint answers is looked up in the configuration loaded at the time of each
    /// request, so a reload changes the endpoints without a restart.
    package var endpointRoutes: RouterGroup {
        var api = RouterGroup(middleware: [crossOrigin, ClientErrorRendering(), AppIdCheck(appId: appId)])
        for method in Self.endpointMethods {
            api.add(method, "\(Self.endpointPath)/{route...}") { [self] request, parameters in
                try await serveEndpoint(request, route: "/" + (parameters["route"] ?? ""))
            }
        }
        var routes = RouterGroup()
        routes.add(api)
        let crossOrigin = crossOrigin
        routes.add("OPTIONS", "\(Self.endpointPath)/{route...}") { request, _ in crossOrigin.preflight(request) }
        return routes
    }

    /// One endpoint request: validation, then the user it runs as, then the function, then its answer.
    func serveEndpoint(_ request: ServerRequest, route: String) async throws -> ServerResponse {
        let normalized = route.count > 1 && route.hasSuffix("/") ? String(route.dropLast()) : route
        let endpoint: HTTPEndpoint
        switch app.endpoint(route: normalized, method: request.method) {
        case .found(let found): endpoint = found
        case .otherMethods(let allowed):
            throw APIError.methodNotAllowed(request.method, request.path, allowed: allowed)
        case .none:
            throw APIError(status: 404, code: "NotFound", message: "no HTTPS endpoint has the route \(normalized)")
        }
        try validate(request, for: endpoint)
        let incoming = Self.endpointRequest(request)
        let (user, runningAsSystem) = try await caller(of: request, incoming, for: endpoint)
        let response = EndpointResponse()
        let result: BSON
        do {
            result = try await app.run(
                endpoint: endpoint, request: incoming, response: response, user: user,
                runningAsSystem: runningAsSystem)
        } catch {
            throw APIError(error)
        }
        return try Self.answer(response.current, result: result, endpoint: endpoint, accept: request.headers["accept"])
    }

    /// App Services' built-in request validation: the secret as the `secret` query parameter, or the body's
    /// HMAC-SHA256 with the secret as the key in `Endpoint-Signature: sha256=<hex>`.
    func validate(_ request: ServerRequest, for endpoint: HTTPEndpoint) throws(APIError) {
        guard let name = endpoint.validation.secretName else { return }
        guard let secret = app.endpointSecret(named: name) else {
            throw APIError.internalError("the secret of endpoint \(endpoint.route) is not loaded")
        }
        let key = Array(secret.exposedValue.utf8)
        switch endpoint.validation {
        case .none: return
        case .secretAsQueryParameter:
            guard let given = request.query["secret"],
                Cryptography.constantTimeEquals(Cryptography.sha256(Array(given.utf8)), Cryptography.sha256(key))
            else {
                throw APIError(
                    status: 401, code: "InvalidSecret",
                    message: "the request's 'secret' query parameter does not match endpoint \(endpoint.route)'s secret"
                )
            }
        case .verifyPayload:
            let expected = HMACSHA256.code(key: key, message: request.body)
            guard let header = request.headers["endpoint-signature"], header.hasPrefix("sha256="),
                let given = Self.bytes(hex: header.dropFirst(7)),
                Cryptography.constantTimeEquals(given, expected)
            else {
                throw APIError(
                    status: 401, code: "InvalidSignature",
                    message:
                        "the request's 'Endpoint-Signature' header is not sha256=<hex HMAC-SHA256 of the body> keyed with endpoint \(endpoint.route)'s secret"
                )
            }
        }
    }

    /// Whom the function runs as: the system, the user a script function names, or the application user whose
    /// access token (`Authorization: Bearer`), `email` and `password` headers, or `apiKey` header the request
    /// carries.
    func caller(of request: ServerRequest, _ incoming: EndpointRequest, for endpoint: HTTPEndpoint) async throws
        -> (FunctionUser, runningAsSystem: Bool)
    {
        let authentication =
            endpoint.authentication
            ?? (app.configuration.functions[endpoint.function]?.runAsSystem == true ? .system : .application)
        switch authentication {
        case .system:
            return (.system, true)
        case .script(let function):
            let id: String
            do {
                id = try await app.scriptUserId(function: function, request: incoming)
            } catch {
                throw APIError(error)
            }
            guard let record = try await users.user(id: id) else {
                throw APIError(
                    status: 401, code: "InvalidSession",
                    message: "the authentication function '\(function)' named a user that does not exist")
            }
            return (record.functionUser(customData: [:]), false)
        case .application:
            if request.headers["authorization"] != nil {
                return (try await tokens.authenticate(accessToken: request.bearerToken).functionUser, false)
            }
            if let email = request.headers["email"], let password = request.headers["password"] {
                // A login like the provider's own: only when it is enabled, and counted against the same limits.
                try ensureEnabled(.emailPassword)
                try throttle.beginPasswordAttempt(from: request.remoteAddress, account: email)
                let record = try await users.authenticate(email: email, password: password)
                throttle.passwordSucceeded(account: email)
                return (record.functionUser(customData: [:]), false)
            }
            if let key = request.headers["apikey"] {
                guard app.configuration.definition.auth.enables(.apiKey) else {
                    throw APIError(
                        status: 401, code: "InvalidSession",
                        message:
                            "API keys log nobody in here: the api-key provider is not enabled (see auth.providers in triggers.yaml)"
                    )
                }
                return (try await users.authenticate(apiKey: key).functionUser(customData: [:]), false)
            }
            throw APIError(
                status: 401, code: "InvalidSession",
                message:
                    "endpoint \(endpoint.route) runs as an application user: send 'Authorization: Bearer <access token>', 'email' and 'password' headers, or an 'apiKey' header"
            )
        }
    }

    /// What the function's context sees of the request.
    static func endpointRequest(_ request: ServerRequest) -> EndpointRequest {
        var headers: [String: [String]] = [:]
        for (name, value) in request.headers.all { headers[name, default: []].append(value) }
        var url = request.path
        if !request.query.isEmpty {
            var components = URLComponents()
            components.queryItems = request.query.sorted { $0.key < $1.key }.map {
                URLQueryItem(name: $0.key, value: $0.value)
            }
            url += "?" + (components.percentEncodedQuery ?? "")
        }
        return EndpointRequest(
            method: request.method, url: url, query: request.query, headers: headers, body: request.body,
            remoteAddress: request.remoteAddress)
    }

    /// The response the function shaped; what it left unset, as App Services fills it: with `respond_result`
    /// the return value as the body (canonical Extended JSON when the client accepts `application/ejson`, relaxed
    /// otherwise, or always with `return_type: EJSON`) and 200, without it 204 and no body.
    static func answer(_ parts: EndpointResponse.Parts, result: BSON, endpoint: HTTPEndpoint, accept: String?)
        throws(APIError) -> ServerResponse
    {
        if let status = parts.status, !(100...599).contains(status) {
            throw APIError.internalError(
                "endpoint \(endpoint.route)'s function set status code \(status) (100 to 599 are valid)")
        }
        var response: ServerResponse
        if let body = parts.body {
            response = ServerResponse(status: parts.status ?? 200, body: .bytes(body))
        } else if endpoint.respondResult {
            let canonical = endpoint.returnsExtendedJSON || accept?.contains("application/ejson") == true
            response = ServerResponse.json(result.extendedJSONBytes(mode: canonical ? .canonical : .relaxed))
            response.status = parts.status ?? 200
        } else {
            response = ServerResponse(status: parts.status ?? 204)
        }
        if !parts.headers.isEmpty {
            let named = Set(parts.headers.map { $0.name.lowercased() })
            response.headers.removeAll { named.contains($0.name.lowercased()) }
            response.headers += parts.headers
        }
        return response
    }

    /// The bytes a hex string spells; nil for anything else.
    static func bytes(hex: Substring) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = UInt8(String(UnicodeScalar(digits[index])), radix: 16),
                let low = UInt8(String(UnicodeScalar(digits[index + 1])), radix: 16)
            else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}
