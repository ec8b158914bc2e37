/// Where a database trigger sends its change events instead of to a function (`webhook:` in `triggers.yaml`),
/// as Hasura's and Supabase's event webhooks do: each event is one `POST` of its relaxed Extended JSON, signed
/// with the secret named here after the Standard Webhooks scheme (`webhook-id`, `webhook-timestamp`,
/// `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`). An answer other than 2xx, a
/// refused connection or the timeout fails the attempt, retried as the trigger's `retry` says.
package struct TriggerWebhook: Sendable, Equatable {
    /// `http://` or `https://`.
    package var url: String
    /// The secret whose value keys the signature (a `whsec_` value is the base64 of the key, as Standard Webhooks
    /// libraries hold it); nil sends requests unsigned.
    package var secretName: String?
    /// Extra request headers, in the order given.
    package var headers: [Header]
    /// How long one attempt may take.
    package var timeout: Duration

    /// What its posts are recorded as in the invocation log, in place of a function's name: `webhook <url>`.
    package var runName: String { "webhook \(url)" }

    package struct Header: Sendable, Equatable {
        package var name: String
        package var value: String

        package init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    package static let defaultTimeout = Duration.seconds(10)

    package init(url: String, secretName: String? = nil, headers: [Header] = [], timeout: Duration = defaultTimeout) {
        self.url = url
        self.secretName = secretName
        self.headers = headers
        self.timeout = timeout
    }
}
