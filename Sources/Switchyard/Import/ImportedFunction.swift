/// A function of an export, as its Swift stub needs it: the kind its use asks for and its JavaScript.
package struct ImportedFunction: Sendable, Equatable {
    /// The name in the export, which triggers, clients and `functions/config.json` use.
    package var name: String
    /// What runs it: the kind of the trigger that calls it, else callable.
    package var kind: FunctionKind
    /// Who uses it, for the stub's comment: "the `onBookChange` database trigger", "the email/password
    /// provider's password reset"; empty for a function only clients or other functions call.
    package var usedBy: [String]
    /// Its JavaScript source (`functions/<name>.js`), nil when the export holds none.
    package var javaScript: String?
    /// The parameters its JavaScript's `exports` function takes.
    package var parameters: [String]

    package init(
        name: String, kind: FunctionKind = .callable, usedBy: [String] = [], javaScript: String? = nil,
        parameters: [String] = []
    ) {
        self.name = name
        self.kind = kind
        self.usedBy = usedBy
        self.javaScript = javaScript
        self.parameters = parameters
    }
}
