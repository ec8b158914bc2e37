/// The email/password provider's settings (`auth.emailPassword` in `triggers.yaml`), as App Services'
/// `local-userpass` provider holds them: whether new users are confirmed at once, which functions confirm a
/// user or reset a password instead of an email, and the links such emails carry.
public struct EmailPasswordSettings: Sendable, Equatable {
    /// New users can log in at once, without confirming their address.
    public var autoConfirm: Bool
    /// The page an emailed confirmation link opens.
    public var confirmEmailURL: String?
    /// Whether `confirmationFunction` confirms new users instead of an email.
    public var runConfirmationFunction: Bool
    public var confirmationFunction: String?
    /// The page an emailed password-reset link opens.
    public var resetPasswordURL: String?
    /// Whether `resetFunction` resets passwords instead of an email.
    public var runResetFunction: Bool
    public var resetFunction: String?

    public init(
        autoConfirm: Bool = false, confirmEmailURL: String? = nil, runConfirmationFunction: Bool = false,
        confirmationFunction: String? = nil, resetPasswordURL: String? = nil, runResetFunction: Bool = false,
        resetFunction: String? = nil
    ) {
        self.autoConfirm = autoConfirm
        self.confirmEmailURL = confirmEmailURL
        self.runConfirmationFunction = runConfirmationFunction
        self.confirmationFunction = confirmationFunction
        self.resetPasswordURL = resetPasswordURL
        self.runResetFunction = runResetFunction
        self.resetFunction = resetFunction
    }

    /// The functions these settings name, for checks that they exist.
    public var functions: [String] { [confirmationFunction, resetFunction].compactMap(\.self) }

    /// The keys of `auth.emailPassword`, in the order they are written.
    static let keys = [
        "autoConfirm", "confirmEmailUrl", "runConfirmationFunction", "confirmationFunction", "resetPasswordUrl",
        "runResetFunction", "resetFunction",
    ]
}
