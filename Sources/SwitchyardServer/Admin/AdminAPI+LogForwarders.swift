import BSON
import Switchyard

/// The log forwarders and how their deliveries are going.
///
/// - `GET /logForwarders` → `{logForwarders: [status]}`, in configuration order; a status is `{name, disabled,
///   logTypes, logStatuses, policy, action: {collection} | {function}, queued, delivered, deliveries, failed,
///   dropped, lastError?, lastErrorTime?}` (counts since the app started or the forwarder's definition changed)
extension AdminAPI {
    func addLogForwarderRoutes(to routes: inout RouterGroup) {
        let forwarding = app.logForwarding
        routes.add("GET", "/logForwarders") { _, _ in
            .json(["logForwarders": .array(forwarding.statuses.map { .document($0.document) })])
        }
    }
}
