import BSON
import Messaging

/// An error as Google's APIs answer it (and firebase-admin parses it):
/// `{"error": {"code": 404, "message": "...", "status": "NOT_FOUND", "details": [...]}}`.
struct GoogleAPIError: Error, Sendable {
    var code: Int
    var message: String
    /// The canonical status name (`NOT_FOUND`, `INVALID_ARGUMENT`, …).
    var status: String
    var details: [BSONDocument] = []
    var headers: [(name: String, value: String)] = []

    var response: ServerResponse {
        var error: BSONDocument = [
            "code": .int32(Int32(code)), "message": .string(message), "status": .string(status),
        ]
        if !details.isEmpty { error.append("details", .array(details.map { .document($0) })) }
        var response = ServerResponse.json(["error": .document(error)], status: code)
        response.headers += headers
        return response
    }

    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    /// FCM's answer for a send that failed with `error`: the HTTP status and canonical status FCM pairs with
    /// the error code, the code itself in an `FcmError` detail and, when the error is about one field of the
    /// request, Google's `BadRequest` naming it (`fieldViolations: [{field: "message.android.ttl", description}]`),
    /// which clients read to tell a bad token from a bad message.
    init(_ error: PushError, retryAfterSeconds: Int) {
        let (code, status): (Int, String) =
            switch error.code {
            case .unregistered: (404, "NOT_FOUND")
            case .invalidArgument: (400, "INVALID_ARGUMENT")
            case .senderIdMismatch: (403, "PERMISSION_DENIED")
            case .quotaExceeded: (429, "RESOURCE_EXHAUSTED")
            case .unavailable: (503, "UNAVAILABLE")
            case .thirdPartyAuthError: (401, "UNAUTHENTICATED")
            default: (500, "INTERNAL")
            }
        self.init(code: code, message: error.message, status: status)
        let errorCode = code == 500 && error.code != .internal ? PushError.Code.internal : error.code
        details = [["@type": .string(Self.fcmErrorType), "errorCode": .string(errorCode.rawValue)]]
        if let field = error.field {
            details.append([
                "@type": .string(Self.badRequestType),
                "fieldViolations": [["field": .string(field), "description": .string(error.message)]],
            ])
        }
        if error.code == .quotaExceeded { headers = [("Retry-After", "\(retryAfterSeconds)")] }
    }

    init(code: Int, message: String, status: String, details: [BSONDocument] = []) {
        self.code = code
        self.message = message
        self.status = status
        self.details = details
    }

    /// A body that is not JSON: Google names the problem in a `BadRequest` field violation.
    static func invalidJSON(_ description: String) -> GoogleAPIError {
        let message = "Invalid JSON payload received. \(description)"
        return GoogleAPIError(
            code: 400, message: message, status: "INVALID_ARGUMENT",
            details: [
                [
                    "@type": .string(badRequestType), "fieldViolations": [["description": .string(message)]],
                ]
            ])
    }

    /// No usable access token. `reason` is Google's `ErrorInfo` reason (`CREDENTIALS_MISSING`,
    /// `ACCESS_TOKEN_EXPIRED`, `ACCESS_TOKEN_TYPE_UNSUPPORTED`).
    static func unauthenticated(reason: String) -> GoogleAPIError {
        let missing = reason == "CREDENTIALS_MISSING"
        var error = GoogleAPIError(
            code: 401,
            message: (missing
                ? "Request is missing required authentication credential."
                : "Request had invalid authentication credentials.")
                + " Expected OAuth 2 access token, login cookie or other valid authentication credential. See https://developers.google.com/identity/sign-in/web/devconsole-project.",
            status: "UNAUTHENTICATED",
            details: [
                [
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": .string(reason),
                    "domain": "googleapis.com",
                ]
            ])
        error.headers = [("WWW-Authenticate", "Bearer realm=\"https://accounts.google.com/\"")]
        return error
    }

    /// Credentials of one project used on another's resources.
    static func permissionDenied(project: String) -> GoogleAPIError {
        GoogleAPIError(
            code: 403,
            message:
                "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)' (or it may not exist).",
            status: "PERMISSION_DENIED",
            details: [
                [
                    "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "IAM_PERMISSION_DENIED",
                    "domain": "cloudresourcemanager.googleapis.com",
                    "metadata": [
                        "permission": "cloudmessaging.messages.create", "resource": .string("projects/\(project)"),
                    ],
                ]
            ])
    }

    static let notFound = GoogleAPIError(code: 404, message: "Requested entity was not found.", status: "NOT_FOUND")
}
