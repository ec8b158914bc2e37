// libFuzzer harness for the Extended JSON reader and writer. Compiled together with the BSON sources into one
// module (see Fuzz/run.sh), so it calls the library directly.
//
// Whatever the input, the reader must return or throw, never crash. When it returns a value, printing that value
// must give text that reads back: canonical text to an equal value, relaxed text to text that prints the same.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    if let value = try? ExtendedJSON.parseValue(bytes) {
        let canonical = value.extendedJSON(mode: .canonical)
        guard let reread = try? ExtendedJSON.parseValue(canonical.utf8) else {
            fatalError("canonical output does not parse: \(canonical)")
        }
        guard reread == value else { fatalError("canonical round trip changed the value: \(canonical)") }

        let relaxed = value.extendedJSON(mode: .relaxed)
        guard let relaxedValue = try? ExtendedJSON.parseValue(relaxed.utf8) else {
            fatalError("relaxed output does not parse: \(relaxed)")
        }
        let relaxedAgain = relaxedValue.extendedJSON(mode: .relaxed)
        guard relaxedAgain == relaxed else { fatalError("relaxed output is unstable: \(relaxed) → \(relaxedAgain)") }
    }
    if let documents = try? ExtendedJSON.parseDocuments(bytes) {
        for document in documents {
            let text = document.extendedJSON(mode: .canonical)
            guard let reread = try? ExtendedJSON.parseDocument(text) else {
                fatalError("canonical document output does not parse: \(text)")
            }
            guard reread == document else { fatalError("document round trip changed the value: \(text)") }
        }
    }
    return 0
}
