import TestSupport

/// FCM's answers, as Google sends them.
enum FCMAnswers {
    static let token = ScriptedHTTPServer.Response.json(
        200, #"{"access_token":"tok-1","expires_in":3599,"token_type":"Bearer"}"#)

    static func name(_ id: String, project: String = "demo") -> ScriptedHTTPServer.Response {
        .json(200, #"{"name":"projects/\#(project)/messages/\#(id)"}"#)
    }

    static func error(
        _ status: Int, _ canonical: String, _ message: String, fcmCode: String? = nil, field: String? = nil,
        headers: [(String, String)] = []
    ) -> ScriptedHTTPServer.Response {
        var details: [String] = []
        if let fcmCode {
            details.append(
                #"{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(fcmCode)"}"#)
        }
        if let field {
            details.append(
                #"{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"\#(field)","description":"\#(message)"}]}"#
            )
        }
        return .json(
            status,
            #"{"error":{"code":\#(status),"message":"\#(message)","status":"\#(canonical)","details":[\#(details.joined(separator: ","))]}}"#,
            headers: headers)
    }
}
