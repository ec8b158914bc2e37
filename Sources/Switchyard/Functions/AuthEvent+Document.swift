import BSON

extension AuthEvent {
    /// The event as App Services delivers it: `{"operationType", "providers", "user", "time"}`, the user
    /// shaped as `FunctionUser.document`.
    package var raw: BSONDocument {
        [
            "operationType": .string(operationType.rawValue),
            "providers": .array(providers.map { .string($0) }),
            "user": .document(user.document),
            "time": .datetime(BSONDate(time)),
        ]
    }
}
