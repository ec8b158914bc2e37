import BSON
import Messaging

/// The transport `switchyard serve --push live` delivers through: Google's FCM with the app's service account,
/// or APNs with its `.p8` key, as `messaging.transport` in `triggers.yaml` says. Credentials come from values
/// (link them to secrets) or a service-account file; errors say what is missing and where, never the key.
package enum LiveMessaging {
    /// - Parameter serviceAccountFile: a service-account JSON file, used instead of the configured value.
    package static func transport(
        for configuration: AppConfiguration, serviceAccountFile: String? = nil
    ) throws(LiveMessagingError) -> any PushMessaging {
        let settings = configuration.definition.messaging
        switch settings.transport {
        case .fcm: return try fcm(settings, values: configuration.values, serviceAccountFile: serviceAccountFile)
        case .apns:
            guard let apns = settings.apns else {
                throw LiveMessagingError("messaging.transport is apns but triggers.yaml has no messaging.apns section")
            }
            return try self.apns(apns, values: configuration.values)
        }
    }

    private static func fcm(
        _ settings: MessagingSettings, values: AppValues, serviceAccountFile: String?
    ) throws(LiveMessagingError) -> FCMClient {
        let account: ServiceAccount
        do {
            if let serviceAccountFile {
                account = try ServiceAccount(contentsOfFile: serviceAccountFile)
            } else {
                let name = settings.fcmServiceAccountValue
                let source = "the value '\(name)'"
                switch values[name] {
                case nil:
                    throw LiveMessagingError(
                        "no FCM credentials: give --service-account FILE, or a value '\(name)' (linked to a secret) holding the service account's JSON"
                    )
                case .secret(let secret)?: account = try ServiceAccount(json: secret.exposedValue, source: source)
                case .plain(.document(let document))?: account = try ServiceAccount(document: document, source: source)
                case .plain(.string(let text))?: account = try ServiceAccount(json: text, source: source)
                case .plain?:
                    throw LiveMessagingError("\(source) must be the service account's JSON (an object or its text)")
                }
            }
        } catch let error as LiveMessagingError {
            throw error
        } catch let error as CredentialError {
            throw LiveMessagingError("FCM credentials: \(error.message)")
        } catch {
            throw LiveMessagingError("FCM credentials: \(error)")
        }
        do {
            return try FCMClient(serviceAccount: account)
        } catch {
            throw LiveMessagingError("cannot start the FCM client: \(error.message)")
        }
    }

    private static func apns(_ settings: APNsSettings, values: AppValues) throws(LiveMessagingError) -> APNsClient {
        let key: String
        switch values[settings.keyValue] {
        case .secret(let secret)?: key = secret.exposedValue
        case .plain(.string(let text))?: key = text
        case nil:
            throw LiveMessagingError(
                "no APNs key: messaging.apns.key names the value '\(settings.keyValue)', which does not exist (link it to a secret holding the .p8 file's text)"
            )
        case .plain?: throw LiveMessagingError("the value '\(settings.keyValue)' must be the .p8 key's text")
        }
        do {
            return try APNsClient(
                keyId: settings.keyId, teamId: settings.teamId, privateKey: key,
                configuration: APNsClient.Configuration(baseURL: settings.baseURL, defaultTopic: settings.topic))
        } catch {
            throw LiveMessagingError("APNs credentials: \(error.message)")
        }
    }
}

/// Live delivery cannot start: no credentials, or unusable ones.
package struct LiveMessagingError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package init(_ message: String) { self.message = message }
    package var description: String { message }
}
