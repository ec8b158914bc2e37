import BSON
import Foundation
import Synchronization

/// The app's log forwarders at work: each run record that a forwarder's types and statuses match is handed to that
/// forwarder's queue (`LogForwarderQueue`) as the run ends, and delivered in the background, off the run's path.
///
/// A forwarder's own function runs are recorded but never forwarded (`LogSource.logForwarder`), so no forwarder
/// feeds itself. `finish()` delivers what is queued and takes no more records, for a clean shutdown.
package final class LogForwarding: Sendable {
    private let queues = ReadMostly<[LogForwarderQueue]>([])
    /// Whether any forwarder is enabled: every run looks at this, and only this, when none is.
    private let active = Atomic(false)
    private let route = Mutex<LogForwarderQueue.Deliver?>(nil)

    init() {}

    /// Starts forwarding to `forwarders`, delivering through `deliver`.
    func start(_ forwarders: [LogForwarder], deliver: @escaping LogForwarderQueue.Deliver) {
        route.withLock { $0 = deliver }
        let queues = forwarders.map { LogForwarderQueue(forwarder: $0, deliver: deliver) }
        self.queues.write { $0 = queues }
        active.store(queues.contains { !$0.forwarder.disabled }, ordering: .relaxed)
    }

    /// Forwards to `forwarders` from now on: one whose definition is unchanged keeps its queue and counts; the
    /// queues of those removed or changed deliver what they hold first.
    func reload(_ forwarders: [LogForwarder]) async {
        guard let deliver = route.withLock({ $0 }) else { return }
        let old = queues.read { $0 }
        let new = forwarders.map { forwarder in
            old.first { $0.forwarder == forwarder } ?? LogForwarderQueue(forwarder: forwarder, deliver: deliver)
        }
        queues.write { $0 = new }
        active.store(new.contains { !$0.forwarder.disabled }, ordering: .relaxed)
        for queue in old where !new.contains(where: { $0 === queue }) { await queue.flush() }
    }

    /// Hands `record` to every forwarder that takes it; returns at once.
    func offer(_ record: InvocationRecord, source: LogSource) {
        guard active.load(ordering: .relaxed), let type = source.logType else { return }
        let status = record.logStatus
        var document: BSONDocument?
        for queue in queues.read({ $0 }) where queue.forwarder.forwards(type, status) {
            if document == nil { document = record.forwardedLog(source: source) }
            if let document { queue.offer(document) }
        }
    }

    /// Waits until every record queued so far has been delivered or counted as failed.
    package func flush() async {
        for queue in queues.read({ $0 }) { await queue.flush() }
    }

    /// Takes no more records and delivers those queued: after the triggers stop, before the store closes.
    func finish() async {
        active.store(false, ordering: .relaxed)
        await flush()
    }

    /// Every forwarder's status, in configuration order.
    package var statuses: [LogForwarderStatus] {
        queues.read { $0 }.map(\.status)
    }

    static func report(_ message: String) {
        FileHandle.standardError.write(Data("switchyard: \(message)\n".utf8))
    }
}
