"""Expected canonical BSON for Tests/BSONTests, from pymongo's `bson` module (an implementation independent
of ours), and the malformed documents made from it: `python3 bson_reference_vectors.py`, with pymongo
installed, prints every vector's and every malformed case's hex.

pymongo cannot encode three deprecated types; their elements are assembled from pymongo's encodings of
the types they share a layout with: undefined is a null element with type byte 0x06, a symbol is a string
element with type byte 0x0E, and a DBPointer is type 0x0C, the key, a string and an ObjectId."""

import uuid

import bson
from bson import Binary, Code, DatetimeMS, Int64, MaxKey, MinKey, ObjectId, Regex, Timestamp
from bson.decimal128 import Decimal128

BOOK_ID = ObjectId("6650a1f4c2b9e83d17a4f0c2")
SHELF_ID = ObjectId("665b0e27d41c9a58e3f6b104")
DEVICE = uuid.UUID("3f2a6c1e-9b4d-4e7a-8c15-2d6e9f0a7b3c")


def element(key, value):
    """One element's bytes (type, key, value) as pymongo encodes it."""
    return bson.encode({key: value})[4:-1]


def undefined(key):
    return b"\x06" + element(key, None)[1:]


def symbol(key, text):
    return b"\x0e" + element(key, text)[1:]


def db_pointer(key, namespace, oid):
    string = element("s", namespace)[3:]
    return b"\x0c" + key.encode() + b"\x00" + string + oid.binary


def document(*elements):
    body = b"".join(elements)
    return (len(body) + 5).to_bytes(4, "little") + body + b"\x00"


VECTORS = [
    ("double", element("rating", 4.5)),
    ("double negative zero", element("delta", -0.0)),
    ("double negative infinity", element("floor", float("-inf"))),
    ("double positive infinity", element("ceiling", float("inf"))),
    ("string with an embedded NUL", element("note", "to\0do")),
    ("empty string", element("subtitle", "")),
    ("two-byte UTF-8", element("author", "Brontë")),
    ("four-byte UTF-8", element("shelf", "📚")),
    ("subdocument with an empty key", element("meta", {"": "untitled"})),
    ("empty subdocument", element("meta", {})),
    ("empty array", element("tags", [])),
    ("array", element("pages", [320, 12])),
    ("binary generic", element("cover", Binary(b"\x89PNG", 0))),
    ("binary old subtype 2", element("blob", Binary(b"\x01\x02\x03", 2))),
    ("binary UUID", element("device", Binary(DEVICE.bytes, 4))),
    ("binary user subtype", element("signature", Binary(b"\xca\xfe", 0x80))),
    ("undefined", undefined("legacy")),
    ("ObjectId", element("_id", BOOK_ID)),
    ("true", element("available", True)),
    ("false", element("available", False)),
    ("datetime before 1970", element("published", DatetimeMS(-1_234_567_890_123))),
    ("datetime", element("added", DatetimeMS(1_717_000_000_000))),
    ("null", element("isbn", None)),
    ("regex", element("filter", Regex("^dune", "mi"))),
    ("DBPointer", db_pointer("shelfRef", "library.shelves", SHELF_ID)),
    ("code", element("script", Code("return 1"))),
    ("symbol", symbol("genre", "scifi")),
    ("empty symbol", symbol("genre", "")),
    ("code with scope", element("script", Code("n + 1", {}))),
    ("code with a non-empty scope", element("script", Code("n + step", {"step": 2}))),
    ("int32", element("copies", 3)),
    ("int32 min", element("count", -(2**31))),
    ("timestamp", element("ts", Timestamp(1_700_000_000, 7))),
    ("int64 max", element("views", Int64(2**63 - 1))),
    ("int64 min", element("views", Int64(-(2**63)))),
    ("decimal 9.99", element("price", Decimal128("9.99"))),
    ("decimal -0.00", element("price", Decimal128("-0.00"))),
    ("minKey", element("low", MinKey())),
    ("maxKey", element("high", MaxKey())),
    ("key starting with $", element("$price", 42)),
]

# One document of every type, as a book with its loan history might look.
EVERY_TYPE = document(
    element("_id", BOOK_ID),
    element("title", "The Left Hand of Darkness"),
    symbol("genre", "scifi"),
    element("pages", 304),
    element("views", Int64(1_234_567_890_123)),
    element("rating", -2.25),
    element("price", Decimal128("12.50")),
    element("cover", Binary(b"\x89PNG\r\n", 0)),
    element("device", Binary(DEVICE.bytes, 4)),
    element("signature", Binary(b"\xca\xfe\xba\xbe", 0x80)),
    element("summary", Code("return title")),
    element("score", Code("rating * weight", {"weight": 2})),
    element("publisher", {"name": "Ace", "city": "New York"}),
    element("editions", [1969, 1976, 2019]),
    element("indexed", Timestamp(1_700_000_000, 3)),
    element("search", Regex("^left", "ix")),
    element("added", DatetimeMS(0)),
    element("reprinted", DatetimeMS(1_717_000_000_000)),
    element("written", DatetimeMS(-86_400_000)),
    element("available", True),
    element("signed", False),
    db_pointer("shelfRef", "library.shelves", SHELF_ID),
    element("shelf", {"$ref": "shelves", "$id": SHELF_ID, "$db": "library"}),
    element("first", MinKey()),
    element("last", MaxKey()),
    element("isbn", None),
    undefined("legacy"),
)


# Malformed documents, each made from a valid one (its source) by the edit its line shows; `why` says
# where the decoder must stop and what it finds there.
V = {name: document(body) for name, body in VECTORS}


def le(n):
    """An int32 field, little-endian, as BSON stores lengths."""
    return (n & 0xFFFFFFFF).to_bytes(4, "little")


def put(data, at, new):
    """`data` with the bytes at `at` overwritten by `new`."""
    changed = bytearray(data)
    changed[at : at + len(new)] = new
    return bytes(changed)


def relen(data):
    """`data` with its declared length set to its actual one, after bytes were added or removed."""
    return le(len(data)) + data[4:]


cases = []


def case(name, source, bad, reason, offset, why):
    assert bad != source
    cases.append((name, source, bad, reason, offset, why))


C = V["int32"]  # {"copies": 3}
T = bson.encode({"title": "Dune"})
case("declared length smaller than the length field", C, put(C, 0, le(3)), "invalidLength", 0, "length 3 at 0")
case("declared length covers only itself", C, put(C, 0, le(4)), "invalidLength", 0, "length 4 at 0")
case("declared length zero", C, put(C, 0, le(0)), "invalidLength", 0, "length 0 at 0")
case("fewer than 5 bytes", C, C[:4], "truncated", 0, "4 bytes in all")
for byte in (0x01, 0xFF, 0x10):
    case(f"last byte 0x{byte:02X} instead of NUL", C, put(C, 16, bytes([byte])), "missingTerminator", 16, "the document's last byte, 16")
case("input ends inside an element", T, T[:12], "truncated", 0, "declares 21 bytes, has 12")
case("input ends inside a key", T, T[:8], "truncated", 0, "declares 21 bytes, has 8")
case("declared length one more than the input", T, put(T, 0, le(22)), "truncated", 0, "declares 22 bytes, has 21")
case("bytes after the document", T, T + bytes.fromhex("CAFEF00D"), "trailingBytes", 21, "4 bytes follow the declared end, 21")
case("declared length one less than the input", T, put(T, 0, le(20)), "trailingBytes", 20, "the declared end is 20, one byte remains")
case("type byte zero before the declared end", C, relen(C + b"\x00\x00"), "invalidLength", 16, "an element type 0 at 16, the end is at 18")
case("type byte 0x80", C, put(C, 4, b"\x80"), "unknownType", 4, "the element's type byte at 4")
case("type byte 0x14", C, put(C, 4, b"\x14"), "unknownType", 4, "one past Decimal128's 0x13, at 4")

A = V["array"]  # {"pages": [320, 12]}, array length at 11
case("array length runs over the outer terminator", A, put(A, 11, le(20)), "truncated", 11, "length 20 at 11 needs bytes up to 31 in a document ending at 30")
case("array length ends before its last element", A, put(A, 11, le(18)), "truncated", 25, "length 18 ends the array at 28, inside the int32 at 25")
case("array without its NUL terminator", A, put(A, 29, b"\x01"), "missingTerminator", 29, "the array's last byte, 29")
S = bson.encode({"tags": ["scifi"]})  # string length at 17
case("array element with a string length past the array", S, put(S, 17, le(32)), "truncated", 17, "string length 32 at 17 in an array ending at 27")

E = V["empty subdocument"]  # {"meta": {}}, subdocument length at 10
case("subdocument length below 5", E, put(E, 10, le(4)), "invalidLength", 10, "length 4 at 10")
case("subdocument without its NUL terminator", E, put(E, 14, b"\x01"), "missingTerminator", 14, "the subdocument's last byte, 14")

B = V["binary generic"]  # {"cover": <4 bytes>}, length at 11
case("binary length past the document", B, put(B, 11, le(255)), "truncated", 11, "length 255 at 11")
case("binary length negative", B, put(B, 11, le(-1)), "invalidLength", 11, "length -1 at 11")
B2 = V["binary old subtype 2"]  # {"blob": subtype 2, 3 bytes}, outer length at 10, inner at 15
case("old binary inner length one too long", B2, put(B2, 15, le(4)), "invalidBinary", 15, "inner 4 at 15, outer 7 minus 4 is 3")
case("old binary inner length one too short", B2, put(B2, 15, le(2)), "invalidBinary", 15, "inner 2 at 15")
case("old binary inner length negative", B2, put(B2, 15, le(-1)), "invalidBinary", 15, "inner -1 at 15")
case("old binary too short for an inner length", B2, relen(put(B2[:15] + B2[19:], 10, le(3))), "invalidBinary", 10, "outer length 3 at 10 leaves no room for the inner one")

P = V["DBPointer"]  # {"shelfRef": "library.shelves", id}, string length at 14, text 18..32, NUL 33, id 34..45
case("DBPointer namespace length negative", P, put(P, 14, le(-1)), "invalidLength", 14, "length -1 at 14")
case("DBPointer namespace length zero", P, put(P, 14, le(0)), "invalidLength", 14, "length 0 at 14 (the NUL counts)")
case("DBPointer namespace not NUL-terminated", P, put(P, 33, b"s"), "missingTerminator", 33, "the namespace's last byte, 33")
case("DBPointer ObjectId four bytes short", P, relen(P[:42] + P[46:]), "truncated", 34, "8 of the ObjectId's 12 bytes at 34")
case("DBPointer ObjectId one byte short", P, relen(P[:45] + P[46:]), "truncated", 34, "11 of the ObjectId's 12 bytes at 34")
case("DBPointer namespace invalid UTF-8", P, put(P, 18, b"\xFF"), "invalidUTF8", 18, "0xFF starts the namespace at 18")

R = V["regex"]  # {"filter": /^dune/im}, pattern 12..17, options 18..20
case("NUL inside the regex pattern", R, put(R, 13, b"\x00"), "unknownType", 18, "the pattern ends at 13, the options at 17, and 'i' at 18 reads as a type byte")
case("NUL before the regex options", R, put(R, 18, b"\x00"), "unknownType", 19, "empty options end at 18, and 'm' at 19 reads as a type byte")
case("regex pattern invalid UTF-8", R, put(R, 12, b"\xFF"), "invalidUTF8", 12, "0xFF starts the pattern at 12")

D = V["double"]  # {"rating": 4.5}, value 12..19
case("double cut to four bytes", D, relen(D[:12] + D[16:]), "truncated", 12, "4 of 8 bytes at 12, length updated")
case("double cut to four bytes, length not updated", D, D[:12] + D[16:], "truncated", 0, "declares 21 bytes, has 17")
I = V["ObjectId"]  # {"_id": id}, id 9..20
case("ObjectId cut to ten bytes", I, relen(I[:19] + I[21:]), "truncated", 9, "10 of 12 bytes at 9")
M = V["decimal 9.99"]  # {"price": 9.99}, value 11..26
case("Decimal128 cut to twelve bytes", M, relen(M[:23] + M[27:]), "truncated", 19, "the high 8 bytes at 19 have 4")

# {"title": "Dune"}: string length at 11, text 15..18, NUL 19
case("string length zero", T, put(T, 11, le(0)), "invalidLength", 11, "length 0 at 11 (the NUL counts)")
case("string length negative", T, put(T, 11, le(-1)), "invalidLength", 11, "length -1 at 11")
case("string not NUL-terminated", T, put(T, 19, b"!"), "missingTerminator", 19, "the string's last byte, 19")
case("string length past the document", T, put(T, 11, le(100)), "truncated", 11, "length 100 at 11")
U = V["two-byte UTF-8"]  # {"author": "Brontë"}, text 16..22, ë is C3 AB at 21
case("string with a lone continuation byte", U, put(U, 21, b"\x80"), "invalidUTF8", 16, "80 AB at 21; the error names the string's start, 16")
case("string with a cut two-byte sequence", U, put(U, 22, b"!"), "invalidUTF8", 16, "C3 21 at 21")
case("string with an overlong encoding", U, put(U, 21, b"\xC1"), "invalidUTF8", 16, "C1 AB at 21 would be an overlong 'k'")
F = V["four-byte UTF-8"]  # {"shelf": "📚"}, text 15..18
case("string with a UTF-16 surrogate", F, put(F, 15, bytes.fromhex("EDA08021")), "invalidUTF8", 15, "ED A0 80 (U+D800) at 15")
case("string with a code point past U+10FFFF", F, put(F, 15, bytes.fromhex("F4908080")), "invalidUTF8", 15, "F4 90 80 80 at 15")
N = V["null"]  # {"isbn": null}, key 5..9
case("key invalid UTF-8", N, put(N, 5, b"\xFF"), "invalidUTF8", 5, "0xFF starts the key at 5")
case("key without NUL", N, relen(N[:9] + N[10:]), "missingTerminator", 5, "no NUL between the key at 5 and the document's end")
Y = V["true"]  # {"available": true}, value at 15
case("boolean 2", Y, put(Y, 15, b"\x02"), "invalidBoolean", 15, "the boolean's byte, 15")
case("boolean 0xFF", Y, put(Y, 15, b"\xFF"), "invalidBoolean", 15, "the boolean's byte, 15")
case("boolean without its byte", Y, relen(Y[:15] + Y[16:]), "truncated", 15, "the document ends at 15")
dup = document(element("copies", 1), element("copies", 2))
case("duplicate key", document(element("copies", 1), element("copy", 2)), dup, "duplicateKey", 17, "the second 'copies' at 17")
nested_ok = bson.encode({"publisher": {"name": "Ace", "city": None}})
nested_dup = document(b"\x03publisher\x00" + document(element("name", "Ace"), element("name", None)))
case("duplicate key in a subdocument", nested_ok, nested_dup, "duplicateKey", 34, "the second 'name' at 34")

W = V["code with scope"]  # {"script": code "n + 1", scope {}}: total 12..15 (19), code length 16..19, code 20..25, scope 26..30
case("code-with-scope length below 14", W, put(W, 12, le(13)), "invalidLength", 12, "length 13 at 12")
case("code-with-scope length past the document", W, put(W, 12, le(200)), "truncated", 12, "length 200 at 12")
case("code-with-scope length longer than its parts", W, relen(put(W, 12, le(20)) [:31] + b"\x00\x00"), "invalidLength", 12, "length 20 at 12, code and scope take 19")
case("code-with-scope length ends inside the scope", W, put(W, 12, le(18)), "truncated", 26, "the scope at 26 needs 5 bytes, 4 are left")
case("code-with-scope negative code length", W, put(W, 16, le(-1)), "invalidLength", 16, "code length -1 at 16")
case("code-with-scope code length past its end", W, put(W, 16, le(12)), "truncated", 16, "code length 12 at 16, 11 bytes are left")
case("code-with-scope code swallows the scope", W, put(W, 16, le(11)), "truncated", 31, "code ends at the scope's NUL, 30; no room for a scope at 31")
X = bson.encode({"script": Code("n", {"unit": "pages"})})  # scope string length at 32
case("code-with-scope scope with a string past its end", X, put(X, 32, le(9)), "truncated", 32, "string length 9 at 32, the scope ends at 42")

if __name__ == "__main__":
    for name, body in VECTORS:
        print(f"{name}: {document(body).hex().upper()}")
    print(f"every type: {EVERY_TYPE.hex().upper()}")
    for name, source, bad, reason, offset, why in cases:
        print(f"{name}: {bad.hex().upper()} from {source.hex().upper()}: {reason} at {offset}, {why}")
