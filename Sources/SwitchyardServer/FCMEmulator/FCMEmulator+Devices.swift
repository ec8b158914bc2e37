import BSON
import Messaging

extension FCMEmulator {
    /// `PUT /emulator/v1/projects/{project}/devices/{token}` with `{"platform": "ios" | "android" | "web"}` →
    /// `{token, platform}`: registers what kind of app a token belongs to, as a client SDK's registration tells
    /// FCM, so the outbox records the payload that platform receives. Emulator-only (the `/emulator/` prefix
    /// marks it, as Firebase's own emulators do); a token registered with no platform gets the iOS and the
    /// Android view.
    func registerDevice(_ request: ServerRequest, project: String, token: String) async -> ServerResponse {
        if let refusal = refusal(request, project: project) { return refusal.response }
        guard RegistrationToken.isWellFormed(token) else {
            return GoogleAPIError(
                PushError(
                    code: .invalidArgument, message: "The registration token is not a valid FCM registration token"),
                retryAfterSeconds: 0
            )
            .response
        }
        guard let body = try? PlainJSON.parseDocument(request.body) else {
            return GoogleAPIError.invalidJSON("The body must be a JSON object.").response
        }
        guard let platform = body["platform"]?.stringValue.flatMap(DevicePlatform.init(rawValue:)) else {
            return GoogleAPIError(
                PushError(code: .invalidArgument, message: "'platform' must be \"ios\", \"android\" or \"web\""),
                retryAfterSeconds: 0
            )
            .response
        }
        do {
            try await outbox.devices.register(token, platform: platform)
        } catch {
            return GoogleAPIError(
                code: 500, message: "The registration could not be saved: \(error)", status: "INTERNAL"
            )
            .response
        }
        return .json(["token": .string(token), "platform": .string(platform.rawValue)])
    }
}
