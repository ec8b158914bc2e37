// libFuzzer target for the BSON decoder (built with the BSON sources into one module; see Fuzz/run.sh).
// Any input must either fail to decode with a BSONDecodingError or decode to a document that encodes,
// decodes back to the same document, and encodes again to the same bytes. Inputs that are Decimal128
// strings must print and parse back to the same value.

@_cdecl("LLVMFuzzerTestOneInput")
public func bsonDecoderFuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = UnsafeBufferPointer(start: data, count: size)
    checkDecimalString(input)
    guard let document = try? BSONDocument(bsonBytes: input) else { return 0 }
    let encoded: [UInt8]
    do {
        encoded = try document.bsonBytes
    } catch {
        fatalError("a decoded document failed to encode: \(error)")
    }
    let again: BSONDocument
    do {
        again = try BSONDocument(bsonBytes: encoded)
    } catch {
        fatalError("re-encoded bytes failed to decode: \(error)")
    }
    guard again == document else { fatalError("round trip changed the document") }
    guard (try? again.bsonBytes) == encoded else { fatalError("encoding is not stable") }
    guard BSON.compare(.document(document), .document(again)) == 0 else { fatalError("compare is not reflexive") }
    return 0
}

private func checkDecimalString(_ input: UnsafeBufferPointer<UInt8>) {
    guard input.count < 64, let text = String(validating: input, as: UTF8.self),
        let value = Decimal128(text)
    else { return }
    let printed = value.description
    guard let reparsed = Decimal128(printed) else { fatalError("printed Decimal128 \(printed) does not parse") }
    guard reparsed.description == printed, Decimal128.compareValues(reparsed, value) == 0 else {
        fatalError("Decimal128 \(text) printed as \(printed) does not round-trip")
    }
}
