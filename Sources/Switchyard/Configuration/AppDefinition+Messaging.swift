import Messaging

extension AppDefinition {
    static let messagingKeys = ["emulator"]
    static let emulatorKeys = ["project", "faults"]
    static let faultKeys = [
        "unregisteredTokens", "unavailable", "internalErrors", "quotaExceeded", "rateLimit", "retryAfter", "latency",
        "connectionResets",
    ]

    static func readMessaging(_ node: YAMLNode, reader: inout ConfigurationReader) -> MessagingSettings {
        var settings = MessagingSettings()
        guard let pairs = reader.mapping(node, "'messaging'") else { return settings }
        reader.rejectUnknownKeys(pairs, known: messagingKeys)
        guard let emulator = pairs["emulator"], !emulator.isNull,
            let fields = reader.mapping(emulator, "'messaging.emulator'")
        else { return settings }
        reader.rejectUnknownKeys(fields, known: emulatorKeys)
        if let v = fields["project"], !v.isNull, let project = reader.string(v, "'project'") {
            if project.isEmpty || project.contains("/") {
                reader.error("'project' must be a Firebase project id (no '/')", at: v)
            } else {
                settings.emulator.project = project
            }
        }
        if let v = fields["faults"], !v.isNull { settings.emulator.faults = readFaults(v, reader: &reader) }
        return settings
    }

    private static func readFaults(_ node: YAMLNode, reader: inout ConfigurationReader) -> FaultSettings {
        var faults = FaultSettings()
        guard let pairs = reader.mapping(node, "'faults'") else { return faults }
        reader.rejectUnknownKeys(pairs, known: faultKeys)
        let counts = 0...FaultSettings.maximumCount
        if let v = pairs["unregisteredTokens"], !v.isNull, let items = reader.sequence(v, "'unregisteredTokens'") {
            for item in items {
                guard let token = reader.string(item, "each of 'unregisteredTokens'") else { continue }
                faults.unregisteredTokens.insert(token)
            }
        }
        if let v = pairs["unavailable"], let n = reader.integer(v, "'unavailable'", in: counts) {
            faults.unavailable = n
        }
        if let v = pairs["internalErrors"], let n = reader.integer(v, "'internalErrors'", in: counts) {
            faults.internalErrors = n
        }
        if let v = pairs["quotaExceeded"], let n = reader.integer(v, "'quotaExceeded'", in: counts) {
            faults.quotaExceeded = n
        }
        if let v = pairs["rateLimit"], let n = reader.integer(v, "'rateLimit'", in: counts) { faults.rateLimit = n }
        if let v = pairs["retryAfter"], let d = reader.duration(v, "'retryAfter'") {
            let milliseconds = d.components.seconds * 1000 + d.components.attoseconds / 1_000_000_000_000_000
            if milliseconds > 86_400_000 {
                reader.error("'retryAfter' must be at most 24h", at: v)
            } else {
                faults.retryAfterSeconds = Int((milliseconds + 999) / 1000)
            }
        }
        if let v = pairs["latency"], let d = reader.duration(v, "'latency'") {
            if d > .seconds(600) {
                reader.error("'latency' must be at most 10m", at: v)
            } else {
                faults.latency = d
            }
        }
        if let v = pairs["connectionResets"], let n = reader.integer(v, "'connectionResets'", in: counts) {
            faults.connectionResets = n
        }
        return faults
    }

    /// The `messaging:` section, when it says something.
    func writeMessaging(to out: inout YAMLWriter) {
        guard messaging != MessagingSettings() else { return }
        let emulator = messaging.emulator
        out.line(0, "messaging:")
        out.line(2, "emulator:")
        if let project = emulator.project { out.field(4, "project", YAMLWriter.string(project)) }
        let faults = emulator.faults
        guard !faults.isEmpty else { return }
        let defaults = FaultSettings()
        out.line(4, "faults:")
        if !faults.unregisteredTokens.isEmpty {
            out.line(6, "unregisteredTokens:")
            for token in faults.unregisteredTokens.sorted() { out.line(8, "- \(YAMLWriter.string(token))") }
        }
        let counts: [(String, Int, Int)] = [
            ("unavailable", faults.unavailable, defaults.unavailable),
            ("internalErrors", faults.internalErrors, defaults.internalErrors),
            ("quotaExceeded", faults.quotaExceeded, defaults.quotaExceeded),
            ("rateLimit", faults.rateLimit, defaults.rateLimit),
        ]
        for (key, value, defaultValue) in counts where value != defaultValue { out.field(6, key, "\(value)") }
        if faults.retryAfterSeconds != defaults.retryAfterSeconds {
            out.field(6, "retryAfter", Duration.seconds(faults.retryAfterSeconds).configurationText)
        }
        if faults.latency != defaults.latency { out.field(6, "latency", faults.latency.configurationText) }
        if faults.connectionResets != defaults.connectionResets {
            out.field(6, "connectionResets", "\(faults.connectionResets)")
        }
    }
}
