/// A trigger that fires on a cron schedule (UTC).
package struct ScheduledTrigger: Sendable, Equatable {
    package var schedule: CronSchedule
    /// Skip the fire times missed while the trigger was disabled or the runtime was down.
    package var skipCatchupEvents: Bool

    package init(schedule: CronSchedule, skipCatchupEvents: Bool = false) {
        self.schedule = schedule
        self.skipCatchupEvents = skipCatchupEvents
    }
}
