import BSON
import Foundation
import Switchyard
import TestSupport
import Testing

/// Reading custom HTTPS endpoints from `triggers.yaml`'s `endpoints:` and from an export's
/// `http_endpoints/config.json` beside it, with every problem located.
@Suite struct HTTPEndpointTests {
    static func errors(_ text: String, registered: Set<String>? = nil) -> [String] {
        do {
            _ = try AppDefinition.parse(text, file: "triggers.yaml", registeredFunctions: registered)
            return []
        } catch {
            return error.description.split(separator: "\n").map(String.init)
        }
    }

    @Test func readsEveryFieldFromTriggersYAMLAndWritesItBack() throws {
        let text = """
            endpoints:
              - route: /books/latest
                http_method: GET
                function_name: latestBooks
                respond_result: true
                fetch_custom_user_data: true
              - route: /hooks/payment
                http_method: "*"
                function_name: onPayment
                validation_method: VERIFY_PAYLOAD
                secret_name: paymentSecret
                create_user_on_auth: true
                disabled: true
                authentication: script
                authentication_function: payer
              - {route: /ping, http_method: post, function_name: ping, validation_method: SECRET_AS_QUERY_PARAM, secret_name: pingSecret, authentication: system}
            """
        let definition = try AppDefinition.parse(text)
        #expect(
            definition.endpoints == [
                HTTPEndpoint(
                    route: "/books/latest", method: .get, function: "latestBooks", respondResult: true,
                    fetchCustomUserData: true),
                HTTPEndpoint(
                    route: "/hooks/payment", method: .any, function: "onPayment",
                    validation: .verifyPayload(secretName: "paymentSecret"), respondResult: false,
                    createUserOnAuth: true, disabled: true, authentication: .script(function: "payer")),
                HTTPEndpoint(
                    route: "/ping", method: .post, function: "ping",
                    validation: .secretAsQueryParameter(secretName: "pingSecret"), respondResult: false,
                    authentication: .system),
            ])
        #expect(definition.endpoints[1].location == SourceLocation(line: 7, column: 5))
        #expect(try AppDefinition.parse(try definition.yamlText()) == definition)
    }

    @Test func badEndpointsAreLocatedWithSuggestions() {
        let errors = Self.errors(
            """
            endpoints:
              - route: books
                http_metod: GET
                function_name: latestBoks
              - route: /hook
                http_method: FETCH
                function_name: latestBooks
                validation_method: VERIFY_PAYLOD
              - route: /signed
                http_method: POST
                function_name: latestBooks
                validation_method: VERIFY_PAYLOAD
              - {route: /signed, http_method: "*", function_name: latestBooks, authentication: scrpt}
            """, registered: ["latestBooks"])
        #expect(
            errors == [
                "triggers.yaml:2:5: an HTTPS endpoint needs 'http_method'",
                "triggers.yaml:2:12: 'route' must start with '/' and hold no '?', '#' or '//' (as '/books/latest')",
                "triggers.yaml:3:5: unknown key 'http_metod' (did you mean 'http_method'?)",
                "triggers.yaml:4:20: unknown function 'latestBoks' (did you mean 'latestBooks'? registered: latestBooks)",
                "triggers.yaml:6:18: unknown 'http_method' 'FETCH' (one of GET, POST, PUT, PATCH, DELETE, *)",
                "triggers.yaml:8:24: unknown 'validation_method' 'VERIFY_PAYLOD' (did you mean 'VERIFY_PAYLOAD'?) (one of NO_VALIDATION, SECRET_AS_QUERY_PARAM, VERIFY_PAYLOAD)",
                "triggers.yaml:12:24: 'validation_method' VERIFY_PAYLOAD needs 'secret_name' (a secret's name)",
                "triggers.yaml:13:5: a second endpoint for * /signed",
                "triggers.yaml:9:5: note: the first is here",
                "triggers.yaml:13:84: unknown 'authentication' 'scrpt' (did you mean 'script'?) (one of application, system, script)",
            ])
    }

    @Test func aSecondEndpointForTheSameRouteAndMethodIsAnError() {
        let errors = Self.errors(
            """
            endpoints:
              - {route: /a, http_method: GET, function_name: f}
              - {route: /a, http_method: "*", function_name: g}
            """)
        #expect(errors.first == "triggers.yaml:3:5: a second endpoint for * /a")
    }

    @Test func readsAnExportsHTTPEndpointsBesideTriggersYAMLAndNeedsTheirSecrets() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", "triggers: []\n")
        try directory.write(
            "http_endpoints/config.json",
            """
            [
              {
                "route": "/hooks/payment",
                "http_method": "POST",
                "function_name": "onPayment",
                "validation_method": "SECRET_AS_QUERY_PARAM",
                "secret_name": "paymentSecret",
                "respond_result": true,
                "fetch_custom_user_data": false,
                "create_user_on_auth": false,
                "disabled": false
              }
            ]
            """)
        do {
            _ = try AppConfiguration.load(directory: directory.path, variables: [:])
            Issue.record("loaded without the secret")
        } catch {
            #expect(
                error.description
                    == "\(directory.path)/http_endpoints/config.json:2:3: endpoint /hooks/payment: secret 'paymentSecret' is not set (set SWITCHYARD_SECRET_PAYMENTSECRET or add it to secrets.json)"
            )
        }
        let configuration = try AppConfiguration.load(
            directory: directory.path, variables: ["SWITCHYARD_SECRET_PAYMENTSECRET": "from-the-environment"])
        #expect(
            configuration.definition.endpoints == [
                HTTPEndpoint(
                    route: "/hooks/payment", method: .post, function: "onPayment",
                    validation: .secretAsQueryParameter(secretName: "paymentSecret"), respondResult: true)
            ])
        #expect(configuration.endpointSecrets["paymentSecret"]?.exposedValue == "from-the-environment")
    }
}
