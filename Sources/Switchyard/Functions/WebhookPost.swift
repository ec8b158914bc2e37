import BSON
import Foundation
import Messaging

/// One attempt at delivering a trigger's event to its webhook (`TriggerWebhook`): a `POST` of the event's
/// relaxed Extended JSON with the Standard Webhooks headers, `webhook-id` being the event's id, the same on every
/// attempt, so a receiver can drop what it has already handled.
struct WebhookPost: Sendable {
    let webhook: TriggerWebhook
    /// The signing key; nil sends the request unsigned.
    let key: [UInt8]?
    let trigger: String
    let eventId: String
    let attempt: Int
    let body: [UInt8]

    /// The key a secret's value stands for: a `whsec_` value is the base64 of the key, as Standard Webhooks
    /// libraries hold it; any other value is the key's UTF-8 bytes.
    static func signingKey(_ secret: String) -> [UInt8] {
        if secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))) {
            return Array(key)
        }
        return Array(secret.utf8)
    }

    /// `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
    static func signature(key: [UInt8], id: String, timestamp: Int64, body: [UInt8]) -> String {
        let content = Array("\(id).\(timestamp).".utf8) + body
        return "v1," + Data(HMACSHA256.code(key: key, message: content)).base64EncodedString()
    }

    func headers(at time: Date) -> HTTPHeaders {
        let timestamp = Int64(time.timeIntervalSince1970)
        var headers: HTTPHeaders = [
            "Content-Type": "application/json", "webhook-id": eventId, "webhook-timestamp": String(timestamp),
            "X-Switchyard-Trigger": trigger, "X-Switchyard-Attempt": String(attempt),
        ]
        if let key {
            headers.add(
                name: "webhook-signature",
                value: Self.signature(key: key, id: eventId, timestamp: timestamp, body: body))
        }
        for header in webhook.headers { headers.add(name: header.name, value: header.value) }
        return headers
    }

    /// Sends the request; a 2xx answer delivered the event.
    /// - Throws: `WebhookRefusal` for any other answer, the client's error when no answer came.
    func send(with client: HTTPClient, at time: Date = Date()) async throws {
        let response = try await client.send(
            HTTPRequest(
                method: .post, url: webhook.url, headers: headers(at: time), body: body, timeout: webhook.timeout))
        guard (200..<300).contains(response.status) else {
            throw WebhookRefusal(url: webhook.url, status: response.status, body: response.text)
        }
    }
}

/// A webhook answered an event with a status other than 2xx.
struct WebhookRefusal: Error, CustomStringConvertible {
    let url: String
    let status: Int
    let body: String

    var description: String {
        let excerpt = body.prefix(200).trimmingCharacters(in: .whitespacesAndNewlines)
        return "webhook \(url) answered \(status)" + (excerpt.isEmpty ? "" : ": \(excerpt)")
    }
}
