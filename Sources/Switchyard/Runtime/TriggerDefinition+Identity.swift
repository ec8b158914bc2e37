extension TriggerDefinition {
    /// What a trigger's saved progress belongs to: its name and its event source. Changing anything else
    /// (function, filters, ordering, retries) keeps the resume token or last fire time; renaming the
    /// trigger or pointing it at another namespace starts it afresh.
    package var identity: String {
        switch kind {
        case .database(let trigger):
            let source =
                switch trigger.scope {
                case .deployment: "*"
                case .database(let name): name
                case .collection(let database, let collection): "\(database).\(collection)"
                }
            return "\(name)|database|\(source)"
        case .scheduled: return "\(name)|scheduled"
        case .authentication: return "\(name)|authentication"
        }
    }
}
