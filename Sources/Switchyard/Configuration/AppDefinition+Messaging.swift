import Messaging

extension AppDefinition {
    static let messagingKeys = ["transport", "fcm", "apns", "emulator"]
    static let fcmKeys = ["serviceAccount"]
    static let apnsKeys = ["teamId", "keyId", "key", "topic", "environment", "host"]
    static let emulatorKeys = ["project", "faults"]
    static let faultKeys = [
        "unregisteredTokens", "unavailable", "internalErrors", "quotaExceeded", "rateLimit", "retryAfter", "latency",
        "connectionResets",
    ]

    static func readMessaging(_ node: YAMLNode, reader: inout ConfigurationReader) -> MessagingSettings {
        var settings = MessagingSettings()
        guard let pairs = reader.mapping(node, "'messaging'") else { return settings }
        reader.rejectUnknownKeys(pairs, known: messagingKeys)
        if let v = pairs["transport"], !v.isNull, let text = reader.string(v, "'messaging.transport'") {
            if let transport = MessagingSettings.Transport(rawValue: text) {
                settings.transport = transport
            } else {
                reader.error("'messaging.transport' is fcm or apns, not '\(text)'", at: v)
            }
        }
        if let v = pairs["fcm"], !v.isNull, let fields = reader.mapping(v, "'messaging.fcm'") {
            reader.rejectUnknownKeys(fields, known: fcmKeys)
            if let name = fields["serviceAccount"], !name.isNull,
                let text = reader.string(name, "'messaging.fcm.serviceAccount'")
            {
                settings.fcmServiceAccountValue = text
            }
        }
        if let v = pairs["apns"], !v.isNull { settings.apns = readAPNs(v, reader: &reader) }
        if settings.transport == .apns, settings.apns == nil, let v = pairs["transport"] {
            reader.error("'messaging.transport: apns' needs a 'messaging.apns' section (teamId, keyId, key)", at: v)
        }
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

    private static func readAPNs(_ node: YAMLNode, reader: inout ConfigurationReader) -> APNsSettings? {
        guard let fields = reader.mapping(node, "'messaging.apns'") else { return nil }
        reader.rejectUnknownKeys(fields, known: apnsKeys)
        func text(_ key: String) -> String? {
            guard let v = fields[key], !v.isNull, let value = reader.string(v, "'messaging.apns.\(key)'") else {
                return nil
            }
            if value.isEmpty { reader.error("'messaging.apns.\(key)' is empty", at: v) }
            return value
        }
        var missing: [String] = []
        let teamId = text("teamId")
        let keyId = text("keyId")
        let key = text("key")
        for (name, value) in [("teamId", teamId), ("keyId", keyId), ("key", key)] where value == nil {
            missing.append(name)
        }
        var environment = APNsSettings.Environment.production
        if let v = fields["environment"], !v.isNull, let value = reader.string(v, "'messaging.apns.environment'") {
            if let known = APNsSettings.Environment(rawValue: value) {
                environment = known
            } else {
                reader.error("'messaging.apns.environment' is production or sandbox, not '\(value)'", at: v)
            }
        }
        let host = text("host")
        if let host, let v = fields["host"], !(host.hasPrefix("https://") || host.hasPrefix("http://")) {
            reader.error("'messaging.apns.host' must be a URL (https://host[:port])", at: v)
        }
        guard missing.isEmpty, let teamId, let keyId, let key else {
            reader.error("'messaging.apns' needs \(missing.joined(separator: ", "))", at: node)
            return nil
        }
        return APNsSettings(
            teamId: teamId, keyId: keyId, keyValue: key, topic: text("topic"), environment: environment, host: host)
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
        out.line(0, "messaging:")
        if messaging.transport != .fcm { out.field(2, "transport", messaging.transport.rawValue) }
        if messaging.fcmServiceAccountValue != MessagingSettings.defaultServiceAccountValue {
            out.line(2, "fcm:")
            out.field(4, "serviceAccount", YAMLWriter.string(messaging.fcmServiceAccountValue))
        }
        if let apns = messaging.apns {
            out.line(2, "apns:")
            out.field(4, "teamId", YAMLWriter.string(apns.teamId))
            out.field(4, "keyId", YAMLWriter.string(apns.keyId))
            out.field(4, "key", YAMLWriter.string(apns.keyValue))
            if let topic = apns.topic { out.field(4, "topic", YAMLWriter.string(topic)) }
            if apns.environment != .production { out.field(4, "environment", apns.environment.rawValue) }
            if let host = apns.host { out.field(4, "host", YAMLWriter.string(host)) }
        }
        let emulator = messaging.emulator
        guard emulator != FCMEmulatorSettings() else { return }
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
