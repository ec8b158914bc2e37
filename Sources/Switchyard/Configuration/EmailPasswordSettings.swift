/// The email/password provider's settings (`auth.emailPassword` in `triggers.yaml`), as App Services'
/// `local-userpass` provider holds them: whether new users are confirmed at once, which functions confirm a
/// user or reset a password instead of an email, and the links such emails carry.
package struct EmailPasswordSettings: Sendable, Equatable {
    /// New users can log in at once, without confirming their address.
    package var autoConfirm: Bool
    /// The page an emailed confirmation link opens.
    package var confirmEmailURL: String?
    /// Whether `confirmationFunction` confirms new users instead of an email.
    package var runConfirmationFunction: Bool
    package var confirmationFunction: String?
    /// The page an emailed password-reset link opens.
    package var resetPasswordURL: String?
    /// Whether `resetFunction` resets passwords instead of an email.
    package var runResetFunction: Bool
    package var resetFunction: String?

    package init(
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
    package var functions: [String] { [confirmationFunction, resetFunction].compactMap(\.self) }

    /// The keys of `auth.emailPassword`, in the order they are written.
    static let keys = [
        "autoConfirm", "confirmEmailUrl", "runConfirmationFunction", "confirmationFunction", "resetPasswordUrl",
        "runResetFunction", "resetFunction",
    ]
}
