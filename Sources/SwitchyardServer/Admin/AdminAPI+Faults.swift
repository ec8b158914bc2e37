import BSON
import Messaging
import Switchyard

/// Fault injection in the development outbox (and so in the FCM emulator endpoint in front of it), changed
/// while the app runs. The document form is `FaultSettings`'s.
///
/// - `GET    /faults` → the settings, counts showing how many injected failures are still to come
/// - `PATCH  /faults` with some fields → the settings after changing only those
/// - `DELETE /faults` → the settings after clearing every fault
/// - `GET    /topics` → `{topics: [{name, tokens}]}`: who is subscribed to what
extension AdminAPI {
    func addFaultRoutes(to routes: inout RouterGroup) {
        let outbox = app.pushOutbox
        routes.add("GET", "/faults") { _, _ in
            .json(outbox.faults.document)
        }
        routes.add("PATCH", "/faults") { request, _ in
            let changes = try request.bodyDocument()
            do {
                outbox.faults = try FaultSettings(document: changes, base: outbox.faults)
            } catch {
                throw APIError.badRequest("cannot apply these faults: \(error)")
            }
            return .json(outbox.faults.document)
        }
        routes.add("DELETE", "/faults") { _, _ in
            outbox.faults = FaultSettings()
            return .json(outbox.faults.document)
        }
        routes.add("GET", "/topics") { _, _ in
            let topics = outbox.topics.all.sorted { $0.key < $1.key }.map { name, tokens -> BSON in
                ["name": .string(name), "tokens": .array(tokens.sorted().map { .string($0) })]
            }
            return .json(["topics": .array(topics)])
        }
    }
}
