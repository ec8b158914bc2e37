import BSON

/// Reads FCM's error answers into `PushError`s. FCM answers
/// `{"error":{"code":404,"message":"…","status":"NOT_FOUND","details":[{"@type":
/// "type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"UNREGISTERED"}]}}`; the FCM error code in
/// `details` is the most precise, then the canonical `status`, then the HTTP status itself.
enum FCMErrorResponse {
    static let fcmErrorType = "type.googleapis.com/google.firebase.fcm.v1.FcmError"
    static let badRequestType = "type.googleapis.com/google.rpc.BadRequest"

    static func pushError(status: Int, body: [UInt8], place: String) -> PushError {
        let error = (try? ExtendedJSON.parseValue(body))?.documentValue?["error"]?.documentValue
        var fcmCode: String?
        var field: String?
        for detail in error?["details"]?.arrayValue ?? [] {
            guard let detail = detail.documentValue else { continue }
            switch detail["@type"]?.stringValue {
            case fcmErrorType?: fcmCode = detail["errorCode"]?.stringValue
            case badRequestType?:
                field = detail["fieldViolations"]?.arrayValue?.first?.documentValue?["field"]?.stringValue
            default: break
            }
        }
        let canonical = error?["status"]?.stringValue
        let code =
            fcmCode.flatMap(Self.code(fcm:)) ?? canonical.flatMap(Self.code(canonical:))
            ?? Self.code(httpStatus: status)
        let message = error?["message"]?.stringValue ?? "\(place) answered HTTP \(status)"
        return PushError(code: code, message: message, httpStatus: status, field: field)
    }

    /// FCM's own codes map to themselves; `UNSPECIFIED_ERROR` says nothing, so the canonical status decides.
    private static func code(fcm: String) -> PushError.Code? {
        fcm.isEmpty || fcm == "UNSPECIFIED_ERROR" ? nil : PushError.Code(rawValue: fcm)
    }

    private static func code(canonical: String) -> PushError.Code? {
        switch canonical {
        case "RESOURCE_EXHAUSTED": .quotaExceeded
        case "": nil
        default: PushError.Code(rawValue: canonical)
        }
    }

    static func code(httpStatus: Int) -> PushError.Code {
        switch httpStatus {
        case 400: .invalidArgument
        case 401: .unauthenticated
        case 403: .permissionDenied
        case 404: .notFound
        case 429: .quotaExceeded
        case 500: .internal
        case 503: .unavailable
        default: .unknown
        }
    }

    /// 429, 500 and 503 pass; everything else FCM says is about the request and would be said again.
    static func isRetryable(status: Int) -> Bool { status == 429 || status == 500 || status == 503 }
}
