import Foundation
import TestSupport
import Testing

/// `switchyard validate` on an app whose HTTPS endpoints come in App Services' `http_endpoints/config.json`:
/// problems located in that file, with suggestions, and exit code 2.
@Suite struct EndpointConfigurationTests {
    @Test func badEndpointsAreLocatedInTheirFileWithExitCode2() throws {
        let app = try TemporaryDirectory()
        try app.write("triggers.yaml", pingApp)
        try app.write(
            "http_endpoints/config.json",
            """
            [
              {"route": "/ping", "http_method": "GET", "function_name": "pnig", "respond_result": true},
              {"route": "/hook", "http_method": "POST", "function_name": "ping", "validation_methd": "VERIFY_PAYLOAD"},
              {"route": "/signed", "http_method": "POST", "function_name": "ping",
               "validation_method": "VERIFY_PAYLOAD", "secret_name": "hookSecret"}
            ]
            """)
        let run = try switchyard(["validate", "--config", app.path])
        #expect(run.status == 2)
        let lines = run.stderr.split(separator: "\n").map(String.init)
        let file = "\(app.path)/http_endpoints/config.json"
        #expect(lines.contains { $0.hasPrefix("\(file):2:61: unknown function 'pnig' (did you mean 'ping'?") })
        #expect(lines.contains("\(file):3:70: unknown key 'validation_methd' (did you mean 'validation_method'?)"))
        #expect(
            lines.contains(
                "\(file):4:3: endpoint /signed: secret 'hookSecret' is not set (set SWITCHYARD_SECRET_HOOKSECRET or add it to secrets.json)"
            ))
        #expect(!run.stdout.contains("ok:"))

        try app.write(
            "http_endpoints/config.json",
            #"[{"route": "/ping", "http_method": "GET", "function_name": "ping", "respond_result": true}]"#)
        let fixed = try switchyard(["validate", "--config", app.path])
        #expect(fixed.status == 0, "\(fixed.stderr)")
    }
}
