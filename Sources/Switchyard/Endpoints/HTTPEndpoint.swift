/// One custom HTTPS endpoint, as App Services' `http_endpoints/config.json` (or `https_endpoints/`) declares it,
/// or the `endpoints:` section of `triggers.yaml` with the same keys: a route and method served under
/// `/app/{app id}/endpoint{route}`, answered by a function.
package struct HTTPEndpoint: Sendable, Equatable {
    /// The methods an endpoint may handle; `any` is App Services' `*`.
    package enum Method: String, Sendable, CaseIterable {
        case get = "GET", post = "POST", put = "PUT", patch = "PATCH", delete = "DELETE", any = "*"

        package func handles(_ method: String) -> Bool { self == .any || rawValue == method }
    }

    /// How a request proves it may call the endpoint, before any user is looked at.
    package enum Validation: Sendable, Equatable {
        case none
        /// `?secret=<the secret>` in the URL.
        case secretAsQueryParameter(secretName: String)
        /// `Endpoint-Signature: sha256=<hex HMAC-SHA256 of the body keyed with the secret>`.
        case verifyPayload(secretName: String)

        package var secretName: String? {
            switch self {
            case .none: nil
            case .secretAsQueryParameter(let name), .verifyPayload(let name): name
            }
        }
    }

    /// Whom the function runs as (App Services sets it on the endpoint's function).
    package enum Authentication: Sendable, Equatable {
        /// A user of the app, by an access token, or email and password headers.
        case application
        /// The system user, with no credentials asked for.
        case system
        /// The user whose id `function` (a callable given the request document) returns.
        case script(function: String)
    }

    package var route: String
    package var method: Method
    package var function: String
    package var validation: Validation
    /// The function's return value is the response body (Extended JSON) unless it set one; otherwise a response
    /// it did not set is 204.
    package var respondResult: Bool
    /// App Services' `return_type`: the function's return value as canonical Extended JSON (`EJSON`) rather than
    /// JSON (relaxed Extended JSON here); a client's `Accept: application/ejson` asks for the former too.
    package var returnsExtendedJSON: Bool
    /// Reads the user's custom data before the function runs.
    package var fetchCustomUserData: Bool
    /// App Services makes a user for a new custom JWT identity; Switchyard has no custom JWT provider, so this
    /// is kept and read but changes nothing.
    package var createUserOnAuth: Bool
    package var disabled: Bool
    /// nil: from the function's settings (`runAsSystem` → system, else application), as App Services decides.
    package var authentication: Authentication?
    /// Where it is declared, for errors found after reading (an unset secret).
    package var file: String
    package var location: SourceLocation?

    package init(
        route: String, method: Method, function: String, validation: Validation = .none, respondResult: Bool = false,
        returnsExtendedJSON: Bool = false, fetchCustomUserData: Bool = false, createUserOnAuth: Bool = false,
        disabled: Bool = false,
        authentication: Authentication? = nil, file: String = "triggers.yaml", location: SourceLocation? = nil
    ) {
        self.route = route
        self.method = method
        self.function = function
        self.validation = validation
        self.respondResult = respondResult
        self.returnsExtendedJSON = returnsExtendedJSON
        self.fetchCustomUserData = fetchCustomUserData
        self.createUserOnAuth = createUserOnAuth
        self.disabled = disabled
        self.authentication = authentication
        self.file = file
        self.location = location
    }

    /// The same endpoint wherever it is declared.
    package static func == (lhs: HTTPEndpoint, rhs: HTTPEndpoint) -> Bool {
        lhs.route == rhs.route && lhs.method == rhs.method && lhs.function == rhs.function
            && lhs.validation == rhs.validation && lhs.respondResult == rhs.respondResult
            && lhs.returnsExtendedJSON == rhs.returnsExtendedJSON
            && lhs.fetchCustomUserData == rhs.fetchCustomUserData && lhs.createUserOnAuth == rhs.createUserOnAuth
            && lhs.disabled == rhs.disabled && lhs.authentication == rhs.authentication
    }
}
