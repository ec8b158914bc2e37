import Testing

@testable import SwitchyardServer

@Suite struct CryptographyTests {
    /// Keys, salts and tokens are made of these: exactly as many bytes as asked, different at every draw.
    @Test func randomBytesHaveTheAskedLengthAndDifferEachTime() {
        for count in [0, 1, 7, 8, 9, 16, 64, 1000] {
            #expect(Cryptography.randomBytes(count).count == count)
        }
        let draws = (0..<8).map { _ in Cryptography.randomBytes(32) }
        #expect(Set(draws.map { $0.map(String.init).joined(separator: ",") }).count == draws.count)
        #expect(draws.allSatisfy { Set($0).count > 1 })
    }
}
