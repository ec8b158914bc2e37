import Foundation
import Switchyard
import TestSupport
import Testing

@Suite struct SecretTests {
    let value = "s3cr3t-VALUE-9f8e7d"

    @Test func everyPrintoutHidesTheValue() {
        let secret = Secret(name: "fcmServerKey", value: value)
        var dumped = ""
        dump(secret, to: &dumped)
        var printed = ""
        print(secret, to: &printed)
        let printouts = [
            secret.description, secret.debugDescription, "\(secret)", String(reflecting: secret), dumped, printed,
            "\([secret])", "\(Optional(secret) as Any)",
        ]
        for text in printouts {
            #expect(!text.contains(value))
            #expect(text.contains("<secret>"))
        }
        #expect(Mirror(reflecting: secret).children.isEmpty)
        #expect(secret.exposedValue == value)
    }

    @Test func loadedConfigurationNeverShowsASecret() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", "triggers: []\n")
        try directory.write("values.json", #"{"key": {"secret": "fcmServerKey"}, "topic": "books"}"#)
        let configuration = try AppConfiguration.load(
            directory: directory.path, variables: [SecretStore.variableName(for: "fcmServerKey"): value])
        var log = ""
        print("loaded \(configuration)", to: &log)
        print(configuration.values, to: &log)
        dump(configuration, to: &log)
        debugPrint(configuration.values, to: &log)
        #expect(!log.contains(value))
        #expect(log.contains("key: <secret>"))
        #expect(log.contains("books"))
    }

    @Test func errorsAboutSecretsFilesNeverQuoteTheirContents() throws {
        let directory = try TemporaryDirectory()
        try directory.write("triggers.yaml", "triggers: []\n")
        try directory.write("values.json", #"{"key": {"secret": "fcmServerKey"}, "other": {"secret": "apiKey"}}"#)
        let malformed = [
            "{\"fcmServerKey\": \(value)}",
            "{\"fcmServerKey\": [\"\(value)\"]}",
            "{\"fcmServerKey\": \"\(value)\", \"fcmServerKey\": \"\(value)\"}",
            "{\"fcmServerKey\": \"\(value)\"",
            "\(value)",
        ]
        for text in malformed {
            try directory.write("secrets.json", text)
            do {
                _ = try AppConfiguration.load(directory: directory.path, variables: [:])
                Issue.record("malformed secrets.json was accepted: error expected")
            } catch {
                #expect(!error.description.contains(value))
                #expect(error.description.contains("secrets.json:"))
            }
        }
    }
}
