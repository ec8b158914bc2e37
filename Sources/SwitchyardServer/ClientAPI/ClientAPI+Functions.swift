import BSON
import DocumentStore
import Switchyard

extension ClientAPI {
    /// `POST /app/{app}/functions/call` (access token) with canonical Extended JSON `{name, arguments, service?}`:
    /// the function's result (or the service action's) as canonical Extended JSON.
    nonisolated(nonsending) func callFunction(_ request: ServerRequest) async throws -> ServerResponse {
        let token = request.bearerTokenSlice
        // A kept caller is taken without an `await`, which would cost every call a switch back to its executor, and
        // without copying the token out of its header.
        let caller: SessionTokens.Caller
        if let token, let kept = try tokens.keptCaller(token) {
            caller = kept
        } else {
            caller = try await tokens.authenticate(accessToken: token.map(String.init))
        }
        let body = try request.extendedJSONBody()
        guard let name = body["name"]?.stringValue, !name.isEmpty else {
            throw APIError(
                status: 400, code: "InvalidParameter", message: "the request body must name the function ('name')")
        }
        let arguments: [BSON]
        switch body["arguments"] {
        case nil, .null?: arguments = []
        case .array(let values)?: arguments = values
        default:
            throw APIError(status: 400, code: "InvalidParameter", message: "'arguments' must be an array")
        }
        let result: BSON
        if let service = body["service"], service != .null {
            guard service.stringValue == MongoDBService.defaultName else {
                throw APIError(
                    status: 404, code: "ServiceNotFound",
                    message:
                        "service not found: '\(service.stringValue?.prefix(64) ?? "")' (clients can call '\(MongoDBService.defaultName)')"
                )
            }
            let access = try await dataAccess(for: caller.functionUser)
            let call = MongoServiceCall(store: app.store, access: access, defaultTimeLimit: queryTimeLimit)
            result = try await withTaskExecutorPreference(queryExecutor) {
                try await call.run(action: name, arguments: arguments)
            }
        } else {
            do {
                result = try await app.call(
                    function: name, arguments: arguments, user: caller.functionUser, request: Self.ruleRequest(request))
            } catch {
                throw APIError(error)
            }
        }
        return .json(result.extendedJSONBytes(mode: .canonical))
    }

    /// The data access rules `user`'s `mongodb-atlas` calls and `watch` streams are held to, with their custom data
    /// read fresh where a rule reads it.
    func dataAccess(for user: FunctionUser) async throws(APIError) -> UserDataAccess {
        do {
            return try await app.dataAccess(for: user)
        } catch {
            throw APIError.storageFailure(code: (error as? StoreError)?.code ?? .storageFailure)
                ?? APIError(status: 500, code: "InternalServerError", message: "cannot read the custom user data")
        }
    }

    /// What a `canEvaluate` rule sees as `%%request`.
    static func ruleRequest(_ request: ServerRequest) -> BSONDocument {
        var document: BSONDocument = [
            "remoteIPAddress": .string(request.remoteAddress), "httpMethod": .string(request.method),
        ]
        if let agent = request.headers["user-agent"] { document.append("httpUserAgent", .string(agent)) }
        if let referrer = request.headers["referer"] { document.append("httpReferrer", .string(referrer)) }
        return document
    }
}
