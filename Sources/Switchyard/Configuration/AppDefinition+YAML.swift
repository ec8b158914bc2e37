import BSON

extension AppDefinition {
    /// The `triggers.yaml` text that `AppDefinition.parse` reads back as this definition. Defaults are left
    /// out; function and auth sections appear only when they say something.
    package func yamlText() throws(UnwritableValue) -> String {
        var out = YAMLWriter()
        if let appId { out.field(0, "appId", YAMLWriter.string(appId)) }
        switch store {
        case .postgresql(let url): out.field(0, "store", YAMLWriter.string(url))
        case .secret(let name): out.field(0, "store", "{secret: \(YAMLWriter.string(name))}")
        case nil: break
        }
        if functionTimeout != Self.defaultFunctionTimeout {
            out.field(0, "functionTimeout", functionTimeout.configurationText)
        }
        if !allowedRequestOrigins.isEmpty {
            out.field(
                0, "allowedRequestOrigins",
                "[" + allowedRequestOrigins.map(YAMLWriter.string).joined(separator: ", ") + "]")
        }
        out.line(0, triggers.isEmpty ? "triggers: []" : "triggers:")
        for trigger in triggers {
            out.line(2, "- name: \(YAMLWriter.string(trigger.name))")
            out.field(4, "type", trigger.kind.typeName)
            if let webhook = trigger.webhook {
                write(webhook, at: 4, to: &out)
            } else {
                out.field(4, "function", YAMLWriter.string(trigger.function))
            }
            if trigger.disabled { out.field(4, "disabled", "true") }
            if let name = trigger.onSuspend { out.field(4, "onSuspend", YAMLWriter.string(name)) }
            if let webhook = trigger.suspensionWebhook {
                out.line(4, "onSuspend:")
                write(webhook, at: 6, to: &out)
            }
            if let name = trigger.onFailure { out.field(4, "onFailure", YAMLWriter.string(name)) }
            switch trigger.kind {
            case .database(let database): try write(database, to: &out)
            case .scheduled(let scheduled):
                out.field(4, "schedule", YAMLWriter.quoted(scheduled.schedule.expression))
                if scheduled.skipCatchupEvents { out.field(4, "skipCatchupEvents", "true") }
            case .authentication(let authentication):
                out.field(4, "operation", authentication.operation.rawValue)
                out.field(
                    4, "providers",
                    "[" + authentication.providers.sorted().map(\.rawValue).joined(separator: ", ") + "]")
            }
        }
        if !functions.isEmpty {
            out.line(0, "functions:")
            for name in functions.keys.sorted() {
                guard let settings = functions[name] else { continue }
                guard settings != FunctionSettings() else {
                    out.line(2, "\(YAMLWriter.string(name)): {}")
                    continue
                }
                out.line(2, "\(YAMLWriter.string(name)):")
                if settings.isPrivate { out.field(4, "private", "true") }
                if settings.runAsSystem { out.field(4, "runAsSystem", "true") }
                if !settings.canEvaluate.isEmpty { try out.field(4, "canEvaluate", .document(settings.canEvaluate)) }
                if let timeout = settings.timeout { out.field(4, "timeout", timeout.configurationText) }
            }
        }
        if auth != AuthSettings() {
            out.line(0, "auth:")
            if !auth.providers.isEmpty {
                out.field(2, "providers", "[" + auth.providers.sorted().map(\.rawValue).joined(separator: ", ") + "]")
            }
            if let data = auth.customUserData {
                out.line(2, "customUserData:")
                out.field(4, "database", YAMLWriter.string(data.database))
                out.field(4, "collection", YAMLWriter.string(data.collection))
                out.field(4, "userIdField", YAMLWriter.string(data.userIdField))
                if !data.enabled { out.field(4, "enabled", "false") }
            }
            if let settings = auth.emailPassword { write(settings, to: &out) }
        }
        writeMessaging(to: &out)
        writeIndexes(to: &out)
        writeEndpoints(to: &out)
        writeLogForwarders(to: &out)
        return out.text
    }

    /// `webhook:` at `indent`, its fields beneath.
    private func write(_ webhook: TriggerWebhook, at indent: Int, to out: inout YAMLWriter) {
        out.line(indent, "webhook:")
        out.field(indent + 2, "url", YAMLWriter.string(webhook.url))
        if let name = webhook.secretName { out.field(indent + 2, "secret", YAMLWriter.string(name)) }
        if !webhook.headers.isEmpty {
            out.line(indent + 2, "headers:")
            for header in webhook.headers {
                out.field(indent + 4, YAMLWriter.string(header.name), YAMLWriter.string(header.value))
            }
        }
        if webhook.timeout != TriggerWebhook.defaultTimeout {
            out.field(indent + 2, "timeout", webhook.timeout.configurationText)
        }
    }

    private func write(_ settings: EmailPasswordSettings, to out: inout YAMLWriter) {
        guard settings != EmailPasswordSettings() else {
            out.line(2, "emailPassword: {}")
            return
        }
        out.line(2, "emailPassword:")
        if settings.autoConfirm { out.field(4, "autoConfirm", "true") }
        if let url = settings.confirmEmailURL { out.field(4, "confirmEmailUrl", YAMLWriter.string(url)) }
        if settings.runConfirmationFunction { out.field(4, "runConfirmationFunction", "true") }
        if let name = settings.confirmationFunction { out.field(4, "confirmationFunction", YAMLWriter.string(name)) }
        if let url = settings.resetPasswordURL { out.field(4, "resetPasswordUrl", YAMLWriter.string(url)) }
        if settings.runResetFunction { out.field(4, "runResetFunction", "true") }
        if let name = settings.resetFunction { out.field(4, "resetFunction", YAMLWriter.string(name)) }
    }

    private func write(_ trigger: DatabaseTrigger, to out: inout YAMLWriter) throws(UnwritableValue) {
        switch trigger.scope {
        case .deployment: out.field(4, "database", "\"*\"")
        case .database(let name): out.field(4, "database", YAMLWriter.string(name))
        case .collection(let database, let collection):
            out.field(4, "database", YAMLWriter.string(database))
            out.field(4, "collection", YAMLWriter.string(collection))
        }
        out.field(4, "operations", "[" + trigger.operations.sorted().map(\.rawValue).joined(separator: ", ") + "]")
        if trigger.fullDocument { out.field(4, "fullDocument", "true") }
        if trigger.fullDocumentBeforeChange { out.field(4, "fullDocumentBeforeChange", "true") }
        if !trigger.match.isEmpty { try out.field(4, "match", .document(trigger.match)) }
        if !trigger.project.isEmpty { try out.field(4, "project", .document(trigger.project)) }
        if case .unordered(let limit) = trigger.delivery {
            out.field(4, "ordered", "false")
            out.field(
                4, "maxConcurrency",
                limit == DeliveryOrder.appServicesMaxConcurrency
                    ? "\(limit)  # App Services' own limit for unordered triggers" : "\(limit)")
        }
        if case .byDocumentKey(let limit) = trigger.delivery {
            out.field(4, "ordered", DeliveryOrder.byDocumentKeyName)
            out.field(4, "maxConcurrency", "\(limit)")
        }
        if trigger.skipCatchupEvents { out.field(4, "skipCatchupEvents", "true") }
        if trigger.tolerateResumeErrors { out.field(4, "tolerateResumeErrors", "true") }
        if trigger.retry != RetryPolicy() {
            out.line(4, "retry:")
            out.field(6, "maxAttempts", "\(trigger.retry.maxAttempts)")
            out.field(6, "initialBackoff", trigger.retry.initialBackoff.configurationText)
            out.field(6, "maxBackoff", trigger.retry.maxBackoff.configurationText)
        }
    }
}

extension AppDefinition {
    /// `endpoints:` in App Services' own keys, defaults left out.
    fileprivate func writeEndpoints(to out: inout YAMLWriter) {
        guard !endpoints.isEmpty else { return }
        out.line(0, "endpoints:")
        for endpoint in endpoints {
            out.line(2, "- route: \(YAMLWriter.string(endpoint.route))")
            out.field(4, "http_method", YAMLWriter.quoted(endpoint.method.rawValue))
            out.field(4, "function_name", YAMLWriter.string(endpoint.function))
            switch endpoint.validation {
            case .none: break
            case .secretAsQueryParameter(let name):
                out.field(4, "validation_method", "SECRET_AS_QUERY_PARAM")
                out.field(4, "secret_name", YAMLWriter.string(name))
            case .verifyPayload(let name):
                out.field(4, "validation_method", "VERIFY_PAYLOAD")
                out.field(4, "secret_name", YAMLWriter.string(name))
            }
            if endpoint.respondResult { out.field(4, "respond_result", "true") }
            if endpoint.returnsExtendedJSON { out.field(4, "return_type", "EJSON") }
            if endpoint.fetchCustomUserData { out.field(4, "fetch_custom_user_data", "true") }
            if endpoint.createUserOnAuth { out.field(4, "create_user_on_auth", "true") }
            if endpoint.disabled { out.field(4, "disabled", "true") }
            switch endpoint.authentication {
            case nil: break
            case .application?: out.field(4, "authentication", "application")
            case .system?: out.field(4, "authentication", "system")
            case .script(let function)?:
                out.field(4, "authentication", "script")
                out.field(4, "authentication_function", YAMLWriter.string(function))
            }
        }
    }
}
