import BSON
import Foundation
import Messaging
import Switchyard
import TestSupport
import Testing

@testable import SwitchyardServer

/// Custom HTTPS endpoints over real HTTP, as App Services served them under `/app/{app id}/endpoint{route}`:
/// validation, the user a function runs as, `context.request`, and the `(request, response)` form.
@Suite(.timeLimit(.minutes(1))) struct ClientAPIEndpointTests {
    static let secret = "s3cr3t-webhook-key"

    /// A callable answering with what it saw of the request and its user.
    static func echo(_ arguments: [BSON], _ context: FunctionContext) async throws -> BSON {
        let request = try #require(context.request)
        let query = arguments.first?.documentValue?["query"]?.documentValue ?? [:]
        return [
            "method": .string(request.method), "url": .string(request.url), "query": .document(query),
            "user": .string(context.user.id), "system": .bool(context.runningAsSystem),
            "custom": .document(context.user.customData), "agent": .string(request.header("X-Agent") ?? ""),
            "body": .string(request.bodyText), "remote": .string(request.remoteAddress),
            "when": .datetime(BSONDate(millisecondsSinceEpoch: 0)),
        ]
    }

    /// The `(request, response)` form: a created resource, with headers and a body of its own.
    static func create(_ request: EndpointRequest, _ response: EndpointResponse, _ context: FunctionContext)
        async throws -> BSON
    {
        response.setStatusCode(201)
        response.setHeader("Content-Type", "text/plain")
        response.addHeader("X-Seen", "one")
        response.addHeader("X-Seen", "two")
        response.setBody("made \(request.bodyText) by \(request.method)")
        return "ignored: the function set a body"
    }

    static func registry() -> FunctionRegistry {
        var registry = FunctionRegistry()
        registry.register("echo", echo)
        registry.register("create", create)
        registry.register("whoCalls") { (_: [BSON], context: FunctionContext) async throws -> BSON in
            .string(context.request?.header("X-User") ?? "")
        }
        return registry
    }

    static let definition = try! AppDefinition.parse(
        """
        auth:
          customUserData: {database: app, collection: profiles, userIdField: owner, enabled: true}
        endpoints:
          - {route: /books/latest, http_method: GET, function_name: echo, respond_result: true, authentication: system}
          - {route: /books, http_method: "*", function_name: create, respond_result: true, authentication: system}
          - {route: /quiet, http_method: POST, function_name: echo, respond_result: false, authentication: system}
          - {route: /off, http_method: GET, function_name: echo, respond_result: true, authentication: system, disabled: true}
          - route: /hook/query
            http_method: POST
            function_name: echo
            respond_result: true
            authentication: system
            validation_method: SECRET_AS_QUERY_PARAM
            secret_name: hookSecret
          - route: /hook/signed
            http_method: POST
            function_name: echo
            respond_result: true
            authentication: system
            validation_method: VERIFY_PAYLOAD
            secret_name: hookSecret
          - {route: /mine, http_method: GET, function_name: echo, respond_result: true, fetch_custom_user_data: true}
          - route: /as-script
            http_method: GET
            function_name: echo
            respond_result: true
            authentication: script
            authentication_function: whoCalls
        """)

    static func withApp(_ body: (ServedApp) async throws -> Void) async throws {
        try await ServedApp.with(
            registry(), definition: definition,
            endpointSecrets: ["hookSecret": Secret(name: "hookSecret", value: secret)], body)
    }

    static func endpoint(_ served: ServedApp, _ route: String, app: String = ServedApp.appId) -> String {
        "\(served.server.http.baseURL)/app/\(app)/endpoint\(route)"
    }

    static func send(
        _ served: ServedApp, _ method: HTTPRequest.Method, _ route: String, body: String = "",
        headers: HTTPHeaders = [:]
    ) async throws -> HTTPResponse {
        try await served.client.send(
            HTTPRequest(method: method, url: endpoint(served, route), headers: headers, body: Array(body.utf8)))
    }

    static func errorCode(_ response: HTTPResponse) -> String? {
        response.json?.documentValue?["error_code"]?.stringValue
    }

    @Test func respondResultAnswersTheReturnValueAsExtendedJSONWithTheRequestInTheContext() async throws {
        try await Self.withApp { served in
            let relaxed = try await Self.send(served, "GET", "/books/latest?limit=3", headers: ["X-Agent": "tests"])
            #expect(relaxed.status == 200)
            let document = try #require(relaxed.json?.documentValue)
            #expect(document["method"] == "GET")
            #expect(document["url"]?.stringValue == "/app/\(ServedApp.appId)/endpoint/books/latest?limit=3")
            #expect(document["query"] == ["limit": "3"])
            #expect(document["user"] == "system")
            #expect(document["system"] == true)
            #expect(document["agent"] == "tests")
            #expect(document["remote"] == "127.0.0.1")
            #expect(relaxed.text.contains(#""when":{"$date":"1970-01-01T00:00:00Z"}"#))

            let canonical = try await Self.send(
                served, "GET", "/books/latest", headers: ["Accept": "application/ejson"])
            #expect(canonical.text.contains(#""when":{"$date":{"$numberLong":"0"}}"#))
        }
    }

    @Test func theRequestResponseFormSetsStatusHeadersAndBodyForEveryMethodOfAStarEndpoint() async throws {
        try await Self.withApp { served in
            for method: HTTPRequest.Method in ["POST", "PUT", "PATCH", "DELETE"] {
                let response = try await Self.send(served, method, "/books", body: "dune")
                #expect(response.status == 201)
                #expect(response.headers["content-type"] == "text/plain")
                #expect(response.headers.values(for: "x-seen") == ["one", "two"])
                #expect(response.text == "made dune by \(method.rawValue)")
            }
        }
    }

    @Test func withoutRespondResultAResponseTheFunctionLeftUnsetIs204() async throws {
        try await Self.withApp { served in
            let response = try await Self.send(served, "POST", "/quiet", body: "{}")
            #expect(response.status == 204)
            #expect(response.body.isEmpty)
        }
    }

    @Test func unknownRoutesOtherMethodsDisabledEndpointsAndOtherAppsAreRefusedInAppServicesErrorShape() async throws {
        try await Self.withApp { served in
            let unknown = try await Self.send(served, "GET", "/nothing/here")
            #expect(unknown.status == 404)
            #expect(Self.errorCode(unknown) == "NotFound")
            #expect(unknown.json?.documentValue?["link"]?.stringValue?.isEmpty == false)

            let method = try await Self.send(served, "DELETE", "/books/latest")
            #expect(method.status == 405)
            #expect(Self.errorCode(method) == "MethodNotAllowed")

            let disabled = try await Self.send(served, "GET", "/off")
            #expect(disabled.status == 404)

            let otherApp = try await served.client.get(url: Self.endpoint(served, "/books/latest", app: "other-app"))
            #expect(otherApp.status == 404)
            #expect(Self.errorCode(otherApp) == "AppNotFound")
        }
    }

    @Test func secretAsQueryParameterAllowsTheSecretAndRefusesOthers() async throws {
        try await Self.withApp { served in
            let allowed = try await Self.send(served, "POST", "/hook/query?secret=\(Self.secret)", body: "{}")
            #expect(allowed.status == 200)

            for route in ["/hook/query", "/hook/query?secret=wrong", "/hook/query?secret=\(Self.secret)x"] {
                let refused = try await Self.send(served, "POST", route, body: "{}")
                #expect(refused.status == 401)
                #expect(Self.errorCode(refused) == "InvalidSecret")
                #expect(!refused.text.contains(Self.secret))
            }
        }
    }

    @Test func verifyPayloadAllowsTheBodysSignatureAndRefusesOthers() async throws {
        try await Self.withApp { served in
            let body = #"{"event": "paid"}"#
            let signature = HMACSHA256.code(key: Array(Self.secret.utf8), message: Array(body.utf8))
                .map { String(format: "%02x", $0) }.joined()
            let allowed = try await Self.send(
                served, "POST", "/hook/signed", body: body, headers: ["Endpoint-Signature": "sha256=\(signature)"])
            #expect(allowed.status == 200)
            #expect(allowed.json?.documentValue?["body"]?.stringValue == body)

            let refusals: [HTTPHeaders] = [
                [:], ["Endpoint-Signature": signature], ["Endpoint-Signature": "sha256=\(signature.dropLast(2))00"],
                ["Endpoint-Signature": "sha256=not-hex"],
            ]
            for headers in refusals {
                let refused = try await Self.send(served, "POST", "/hook/signed", body: body, headers: headers)
                #expect(refused.status == 401)
                #expect(Self.errorCode(refused) == "InvalidSignature")
            }
            let tampered = try await Self.send(
                served, "POST", "/hook/signed", body: #"{"event": "refunded"}"#,
                headers: ["Endpoint-Signature": "sha256=\(signature)"])
            #expect(tampered.status == 401)
        }
    }

    @Test func applicationAuthenticationRunsAsTheUserOfATokenOrEmailAndPasswordWithTheirCustomData() async throws {
        try await Self.withApp { served in
            let login = try await served.registerAndLogin("reader@example.com", "secret-password")
            try await served.app.store.database("app").collection("profiles").insertOne([
                "owner": .string(login.userId), "shelf": "sci-fi",
            ])

            let byToken = try await Self.send(
                served, "GET", "/mine", headers: ["Authorization": "Bearer \(login.accessToken)"])
            #expect(byToken.status == 200)
            #expect(byToken.json?.documentValue?["user"]?.stringValue == login.userId)
            #expect(byToken.json?.documentValue?["system"] == false)
            #expect(byToken.json?.documentValue?["custom"]?.documentValue?["shelf"] == "sci-fi")

            let byPassword = try await Self.send(
                served, "GET", "/mine", headers: ["email": "reader@example.com", "password": "secret-password"])
            #expect(byPassword.status == 200)
            #expect(byPassword.json?.documentValue?["user"]?.stringValue == login.userId)

            let refusals: [(HTTPHeaders, String)] = [
                ([:], "InvalidSession"), (["Authorization": "Bearer not-a-token"], "InvalidSession"),
                (["email": "reader@example.com", "password": "wrong-password"], "InvalidPassword"),
                (["apiKey": "some-key"], "InvalidSession"),
            ]
            for (headers, code) in refusals {
                let refused = try await Self.send(served, "GET", "/mine", headers: headers)
                #expect(refused.status == 401)
                #expect(Self.errorCode(refused) == code)
                #expect(!refused.text.contains("wrong-password"))
            }
        }
    }

    @Test func scriptAuthenticationRunsAsTheUserTheScriptNames() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let allowed = try await Self.send(served, "GET", "/as-script", headers: ["X-User": login.userId])
            #expect(allowed.status == 200)
            #expect(allowed.json?.documentValue?["user"]?.stringValue == login.userId)

            let unknown = try await Self.send(served, "GET", "/as-script", headers: ["X-User": "nobody"])
            #expect(unknown.status == 401)
            #expect(Self.errorCode(unknown) == "InvalidSession")

            let none = try await Self.send(served, "GET", "/as-script")
            #expect(none.status == 400)
            #expect(Self.errorCode(none) == "FunctionExecutionError")
        }
    }

    @Test func anEndpointFunctionCalledThroughFunctionsCallSaysWhereToCallIt() async throws {
        try await Self.withApp { served in
            let login = try await served.loginAnonymously()
            let response = try await served.call("create", token: login.accessToken)
            #expect(Self.errorCode(response) == "FunctionExecutionError")
            #expect(response.text.contains("/endpoint/"))
        }
    }

    /// An app in App Services' layout: `http_endpoints/config.json` beside `triggers.yaml`, its secret in
    /// `secrets.json`, loaded as `serve` loads it and served.
    @Test func servesTheEndpointsOfAnAppsHTTPEndpointsFile() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("triggers.yaml", "triggers: []\nfunctions:\n  echo: {runAsSystem: true}\n")
        _ = try directory.write("secrets.json", #"{"hookSecret": "\#(Self.secret)"}"#)
        _ = try directory.write(
            "http_endpoints/config.json",
            """
            [{"route": "/hook", "http_method": "POST", "function_name": "echo", "validation_method":
              "SECRET_AS_QUERY_PARAM", "secret_name": "hookSecret", "respond_result": true,
              "fetch_custom_user_data": false, "create_user_on_auth": false, "disabled": false, "return_type": "JSON"}]
            """)
        let configuration = try AppConfiguration.load(
            directory: directory.path, registeredFunctions: Self.registry().names, variables: [:])
        try await ServedApp.with(
            Self.registry(), definition: configuration.definition, endpointSecrets: configuration.endpointSecrets
        ) { served in
            let allowed = try await Self.send(served, "POST", "/hook?secret=\(Self.secret)", body: "{}")
            #expect(allowed.status == 200)
            #expect(allowed.json?.documentValue?["system"] == true)
            let refused = try await Self.send(served, "POST", "/hook?secret=nope", body: "{}")
            #expect(refused.status == 401)
        }
    }
}
