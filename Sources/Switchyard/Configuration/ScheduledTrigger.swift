/// A trigger that fires on a cron schedule (UTC).
public struct ScheduledTrigger: Sendable, Equatable {
    public var schedule: CronSchedule
    /// Skip the fire times missed while the trigger was disabled or the runtime was down.
    public var skipCatchupEvents: Bool

    public init(schedule: CronSchedule, skipCatchupEvents: Bool = false) {
        self.schedule = schedule
        self.skipCatchupEvents = skipCatchupEvents
    }
}
