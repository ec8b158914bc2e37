extension Duration {
    /// `minutes` × 60 seconds, so a test reads `app.clock.advance(by: .minutes(5))` (the standard library stops at
    /// seconds).
    public static func minutes(_ minutes: Int) -> Duration { .seconds(Int64(minutes) * 60) }

    /// `hours` × 3,600 seconds.
    public static func hours(_ hours: Int) -> Duration { .seconds(Int64(hours) * 3_600) }
}
