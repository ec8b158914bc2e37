"""pymongo against a wire server that has users: what an authenticated, an unauthenticated and a refused client read.

Run as: python pymongo_auth.py URI SCENARIO [ARG]; prints "ok SCENARIO" when every assertion held.
  authenticated USER   the URI carries USER's credentials: commands run, connectionStatus names USER
  unauthenticated      the URI carries none: the handshake and ping answer, other commands are Unauthorized (13)
  reader USER          USER holds read@authtests and readWrite@scratch: what they allow runs, the rest is Unauthorized
  refused SECRET       the URI carries a wrong password SECRET: AuthenticationFailed (18), SECRET in no message
  malformed            SCRAM messages by hand that no driver sends are refused, and the server goes on serving
"""
import sys

import pymongo
from pymongo.errors import OperationFailure

uri, scenario = sys.argv[1], sys.argv[2]
argument = sys.argv[3] if len(sys.argv) > 3 else None
client = pymongo.MongoClient(uri, serverSelectionTimeoutMS=30000)


def authenticated():
    status = client.admin.command("connectionStatus")
    assert status["authInfo"]["authenticatedUsers"] == [{"user": argument, "db": "admin"}], status
    shelf = client.authtests.shelf
    shelf.drop()
    shelf.insert_many([{"_id": n, "title": "Book %d" % n} for n in range(30)])
    assert [d["_id"] for d in shelf.find({}, batch_size=7).sort("_id", -1).limit(3)] == [29, 28, 27]
    with shelf.watch() as stream:
        shelf.insert_one({"_id": 100})
        assert stream.next()["documentKey"] == {"_id": 100}


def unauthenticated():
    assert client.admin.command("ping")["ok"] == 1
    hello = client.admin.command("hello", saslSupportedMechs="admin.nobody")
    assert sorted(hello["saslSupportedMechs"]) == ["SCRAM-SHA-1", "SCRAM-SHA-256"], hello
    for attempt in (lambda: client.authtests.shelf.find_one(), lambda: client.list_database_names(),
                    lambda: client.authtests.shelf.insert_one({"x": 1}), lambda: client.admin.command("serverStatus")):
        try:
            attempt()
            raise AssertionError("an unauthenticated command ran")
        except OperationFailure as error:
            assert error.code == 13, error.details
            assert error.details["codeName"] == "Unauthorized", error.details


def reader():
    status = client.admin.command("connectionStatus")
    assert status["authInfo"]["authenticatedUserRoles"] == [
        {"role": "read", "db": "authtests"}, {"role": "readWrite", "db": "scratch"}], status
    assert client.authtests.shelf.find_one({"_id": 1}) == {"_id": 1, "title": "Book 1"}
    client.scratch.notes.insert_one({"_id": "n1"})
    assert client.scratch.notes.find_one() == {"_id": "n1"}
    client.authtests.shelf.aggregate([{"$match": {"_id": {"$lt": 3}}}, {"$out": {"db": "scratch", "coll": "copy"}}])
    assert client.scratch.copy.count_documents({}) == 3
    assert sorted(client.list_database_names()) == ["authtests", "scratch"], client.list_database_names()

    def unauthorized(attempt, where):
        try:
            attempt()
            raise AssertionError("a command beyond the user's roles ran")
        except OperationFailure as error:
            assert error.code == 13, error.details
            assert "not authorized on %s" % where in error.details["errmsg"], error.details

    unauthorized(lambda: client.authtests.shelf.insert_one({"_id": "x"}), "authtests")
    unauthorized(lambda: client.authtests.shelf.aggregate([{"$out": "copy"}]), "authtests")
    unauthorized(lambda: client.other.books.find_one(), "other")
    unauthorized(lambda: client.scratch.notes.create_index("title"), "scratch")
    unauthorized(lambda: client.scratch.drop_collection("notes"), "scratch")
    unauthorized(lambda: client.admin.command("serverStatus"), "every database")
    unauthorized(lambda: client.watch().try_next(), "every database")
    assert client.authtests.shelf.count_documents({}) == 31


def refused():
    try:
        client.authtests.shelf.find_one()
        raise AssertionError("a wrong password was let in")
    except OperationFailure as error:
        assert error.code == 18, error.details
        assert error.details["codeName"] == "AuthenticationFailed", error.details
        assert argument not in str(error) and argument not in repr(error.details), error.details


def malformed():
    def refused_with(code, command, **fields):
        try:
            client.admin.command(command, 1, **fields)
            raise AssertionError("%s %r was accepted" % (command, fields))
        except OperationFailure as error:
            assert error.code == code, (fields, error.details)

    for payload in [b"", b"garbage", b"p=tls-unique,,n=reader,r=abc", b"n,,r=abc,n=reader", b"n,,n=,r=abc",
                    b"n,,n=re=ader,r=abc", b"n,a=other,n=reader,r=abc", b"n,,n=reader,r=", b"\xff\xfe"]:
        refused_with(18, "saslStart", mechanism="SCRAM-SHA-256", payload=payload)
    refused_with(2, "saslStart", mechanism="PLAIN", payload=b"\0reader\0secret")
    refused_with(17, "saslContinue", conversationId=1, payload=b"c=biws,r=abc,p=AAAA")
    start = client.admin.command("saslStart", 1, mechanism="SCRAM-SHA-256", payload=b"n,,n=reader,r=clientnonce")
    server_first = start["payload"].decode()
    nonce = server_first.split(",")[0][2:]
    assert nonce.startswith("clientnonce") and not start["done"], start
    # Client-final messages that a nonce mismatch, a channel binding that is not the first message's, a missing or
    # undecodable proof, and a wrong proof each spoil.
    for final in ["c=biws,r=x{nonce},p=AAAA", "c=eSws,r={nonce},p=AAAA", "c=biws,r={nonce}", "c=biws,r={nonce},p=!!",
                  "c=biws,r={nonce},p=AAAA"]:
        again = client.admin.command("saslStart", 1, mechanism="SCRAM-SHA-256", payload=b"n,,n=reader,r=clientnonce")
        nonce = again["payload"].decode().split(",")[0][2:]
        payload = final.format(nonce=nonce).encode()
        refused_with(18, "saslContinue", conversationId=again["conversationId"], payload=payload)
    assert client.admin.command("ping")["ok"] == 1


globals()[scenario]()
print("ok " + scenario)
