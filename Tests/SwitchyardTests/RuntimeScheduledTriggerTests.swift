import BSON
import DocumentStore
import Foundation
import Synchronization
import Testing

@testable import Switchyard

@Suite struct RuntimeScheduledTriggerTests {
    func scheduledTrigger(_ name: String, _ cron: String, skipCatchupEvents: Bool = false) throws -> TriggerDefinition {
        TriggerDefinition(
            name: name, function: "tick",
            kind: .scheduled(ScheduledTrigger(schedule: try CronSchedule(cron), skipCatchupEvents: skipCatchupEvents)))
    }

    func fireTimes(_ log: DeliveryLog, _ trigger: String) -> [Date] {
        log.of(trigger).compactMap { invocation in
            guard case .scheduled(let event) = invocation.input else { return nil }
            return event.scheduledTime
        }
    }

    @Test func firesOnScheduleAndCatchesUpMissedRunsAfterARestart() async throws {
        try await withStore(.sqlite) { store, _ in
            let clock = ManualClock(utc("2026-01-01 00:00"))
            let log = DeliveryLog()
            let definitions = [
                try scheduledTrigger("every10", "*/10 * * * *"),
                try scheduledTrigger("skipper", "*/10 * * * *", skipCatchupEvents: true),
            ]
            let configuration = TriggerRuntimeConfiguration(clock: clock, retry: .quick(2))
            var runtime = TriggerRuntime(store: store, definitions: definitions, configuration: configuration) {
                log.record($0)
            }
            try await runtime.start()
            try await runtime.awaitIdle()
            #expect(log.all.isEmpty)
            clock.advance(to: utc("2026-01-01 00:35"))
            try await runtime.awaitIdle()
            let firstRuns = [utc("2026-01-01 00:10"), utc("2026-01-01 00:20"), utc("2026-01-01 00:30")]
            #expect(fireTimes(log, "every10") == firstRuns)
            #expect(fireTimes(log, "skipper") == firstRuns)
            #expect(log.of("every10").first?.eventId == "every10@2026-01-01T00:10:00Z")
            await runtime.stop()

            // Down from 00:35 to 01:05: the missed runs are caught up, except by the trigger that skips them.
            clock.advance(to: utc("2026-01-01 01:05"))
            runtime = TriggerRuntime(store: store, definitions: definitions, configuration: configuration) {
                log.record($0)
            }
            try await runtime.start()
            try await runtime.awaitIdle()
            let caughtUp = [utc("2026-01-01 00:40"), utc("2026-01-01 00:50"), utc("2026-01-01 01:00")]
            #expect(fireTimes(log, "every10") == firstRuns + caughtUp)
            #expect(fireTimes(log, "skipper") == firstRuns)
            clock.advance(to: utc("2026-01-01 01:10"))
            try await runtime.awaitIdle()
            #expect(fireTimes(log, "skipper") == firstRuns + [utc("2026-01-01 01:10")])
            let status = try await runtime.status(of: "every10")
            #expect(status.processed == 7 && status.lastEventTime == utc("2026-01-01 01:10"))
            #expect(try await runtime.savedState("every10")?.lastFireTime == utc("2026-01-01 01:10"))
            await runtime.stop()
        }
    }

    @Test func aFireThatKeepsFailingIsDeadLetteredAndTheScheduleGoesOn() async throws {
        try await withStore(.memory) { store, _ in
            let clock = ManualClock(utc("2026-03-01 12:00"))
            let log = DeliveryLog()
            let failing = Mutex(true)
            let runtime = TriggerRuntime(
                store: store, definitions: [try scheduledTrigger("hourly", "0 * * * *")],
                configuration: TriggerRuntimeConfiguration(
                    clock: clock,
                    retry: RetryPolicy(maxAttempts: 3, initialBackoff: .milliseconds(1), maxBackoff: .milliseconds(4)))
            ) { invocation in
                log.record(invocation)
                if failing.withLock({ $0 }) { throw InjectedFailure() }
            }
            try await runtime.start()
            clock.advance(to: utc("2026-03-01 13:00"))
            try await runtime.awaitIdle()
            // Retries wait on the runtime's clock too: each backoff (at most 4 ms) ends once the clock passes it.
            #expect(log.of("hourly").map(\.attempt) == [1])
            for second in 1...2 {
                clock.advance(to: utc("2026-03-01 13:00").addingTimeInterval(Double(second)))
                try await runtime.awaitIdle()
            }
            #expect(log.of("hourly").map(\.attempt) == [1, 2, 3])
            let letter = try #require(try await runtime.deadLetters(trigger: "hourly").first)
            #expect(
                letter.input
                    == .scheduled(ScheduledEvent(triggerName: "hourly", scheduledTime: utc("2026-03-01 13:00"))))
            #expect(try await runtime.savedState("hourly")?.lastFireTime == utc("2026-03-01 13:00"))

            failing.withLock { $0 = false }
            clock.advance(to: utc("2026-03-01 14:00"))
            try await runtime.awaitIdle()
            try await runtime.redeliver(deadLetterId: letter.id)
            #expect(fireTimes(log, "hourly").suffix(2) == [utc("2026-03-01 14:00"), utc("2026-03-01 13:00")])
            let status = try await runtime.status(of: "hourly")
            #expect(status.processed == 2 && status.deadLettered == 1 && status.failedAttempts == 3)
            await runtime.stop()
        }
    }

    @Test func suspendedScheduleResumesFromNowOrFromItsLastFire() async throws {
        try await withStore(.memory) { store, _ in
            let clock = ManualClock(utc("2026-05-01 08:00"))
            let log = DeliveryLog()
            let runtime = TriggerRuntime(
                store: store,
                definitions: [try scheduledTrigger("a", "*/15 * * * *"), try scheduledTrigger("b", "*/15 * * * *")],
                configuration: TriggerRuntimeConfiguration(clock: clock)
            ) { log.record($0) }
            try await runtime.start()
            try await runtime.suspend(trigger: "a")
            try await runtime.suspend(trigger: "b")
            clock.advance(to: utc("2026-05-01 08:40"))
            try await runtime.awaitIdle()
            #expect(log.all.isEmpty)
            try await runtime.resume(trigger: "a", fromToken: true)
            try await runtime.resume(trigger: "b", fromToken: false)
            try await runtime.awaitIdle()
            #expect(fireTimes(log, "a") == [utc("2026-05-01 08:15"), utc("2026-05-01 08:30")])
            #expect(fireTimes(log, "b").isEmpty)
            clock.advance(to: utc("2026-05-01 08:45"))
            try await runtime.awaitIdle()
            #expect(fireTimes(log, "b") == [utc("2026-05-01 08:45")])
            await runtime.stop()
        }
    }
}
