import Messaging
import Testing

@Suite struct HTTPHeadersTests {
    @Test func lookupIgnoresCaseAndSettingReplacesInPlace() {
        var headers: HTTPHeaders = ["Accept": "text/plain", "X-A": "1"]
        headers.add(name: "x-a", value: "2")
        #expect(headers["ACCEPT"] == "text/plain")
        #expect(headers.values(for: "X-a") == ["1", "2"])
        headers["accept"] = "application/json"
        #expect(headers.fields.map(\.name) == ["accept", "X-A", "x-a"])
        headers["x-A"] = nil
        #expect(headers.count == 1 && !headers.contains("X-A"))
        #expect(headers == ["ACCEPT": "application/json"])
    }
}
