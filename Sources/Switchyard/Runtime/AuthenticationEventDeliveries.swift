/// The deliveries of one user's newest authentication event, until they have all finished: the deliveries of
/// that user's next event wait for them.
struct AuthenticationEventDeliveries {
    let eventId: String
    let tasks: [Task<Void, Never>]
    var unfinished: Int
}
