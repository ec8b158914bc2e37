/// One server-sent event for a live admin view.
struct LiveEvent: Sendable {
    var name: String
    var id: String?
    var data: String
}

extension AdminAPI {
    /// A server-sent event stream fed from `source` (already following, so nothing published after the request
    /// arrived is missed) until the client leaves or the source ends. Starts with a `connected` comment so the
    /// client sees the response at once.
    static func events<Element: Sendable>(
        from source: AsyncStream<Element>, _ render: @escaping @Sendable (Element) -> LiveEvent?
    ) -> ServerResponse {
        let stream = EventStream()
        stream.comment("connected")
        let task = Task {
            for await element in source {
                guard let event = render(element) else { continue }
                stream.send(event: event.name, id: event.id, data: event.data)
            }
            stream.finish()
        }
        stream.onTermination { task.cancel() }
        return .events(stream)
    }
}
