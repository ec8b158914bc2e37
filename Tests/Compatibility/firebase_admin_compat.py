"""firebase-admin (PyPI) against Switchyard's FCM emulator: a topic subscription, a topic message, a
multicast with one unregistered token, a message to a Firebase installation ID (the target firebase-admin 7.7
recommends over token) whose data key is `$numberLong` (FCM's JSON is plain JSON), and one to a string that
cannot be a registration token, each response parsed by the SDK as it parses Google's.

Usage: firebase_admin_compat.py BASE_URL SERVICE_ACCOUNT_JSON UNREGISTERED_TOKEN

firebase-admin has no endpoint setting: its FCM URLs are class and instance attributes, replaced here, and
the service account's token_uri points at the emulator, so the SDK makes its real OAuth2 exchange there.
The messages are the ones FCMClientCompatibility sends from Swift (see FirebaseAdminCompatibilityTests).
Prints one JSON object with what the SDK parsed; exits 1 with the reason when anything is not as expected.
"""
import json
import sys

import firebase_admin
from firebase_admin import credentials, exceptions, messaging


def fail(reason):
    print("firebase_admin_compat: " + reason, file=sys.stderr)
    sys.exit(1)


def main():
    base_url, account_path, unregistered = sys.argv[1], sys.argv[2], sys.argv[3]
    messaging._MessagingService.FCM_URL = base_url + "/v1/projects/{0}/messages:send"
    messaging._MessagingService.IID_URL = base_url
    app = firebase_admin.initialize_app(credentials.Certificate(account_path))
    service = messaging._get_messaging_service(app)
    service._fcm_topic_url = "%s/v1/projects/%s/registrations" % (base_url, app.project_id)
    report = {"firebaseAdmin": firebase_admin.__version__}

    subscribed = messaging.subscribe_to_topic(["phone-1", "phone-2"], "books", app=app)
    if subscribed.success_count != 2 or subscribed.failure_count != 0:
        fail("subscribe_to_topic: %d succeeded, %s" % (
            subscribed.success_count, [(e.index, e.reason) for e in subscribed.errors]))
    report["subscribed"] = subscribed.success_count

    topic_message = messaging.Message(
        topic="books",
        notification=messaging.Notification(
            title="New book added", body="Dune by Frank Herbert", image="https://books.example/dune.jpg"),
        data={"bookId": "42", "type": "book_added"},
        android=messaging.AndroidConfig(
            collapse_key="42", priority="high",
            notification=messaging.AndroidNotification(image="https://books.example/dune.jpg", tag="42")),
        apns=messaging.APNSConfig(
            headers={"apns-collapse-id": "42"},
            payload=messaging.APNSPayload(aps=messaging.Aps(mutable_content=True, thread_id="42", sound="default")),
            fcm_options=messaging.APNSFCMOptions(image="https://books.example/dune.jpg")),
    )
    name = messaging.send(topic_message, app=app)
    if not name.startswith("projects/%s/messages/" % app.project_id):
        fail("send returned %r" % name)
    report["topicMessage"] = name

    multicast = messaging.MulticastMessage(
        tokens=["phone-1", unregistered, "phone-2"],
        notification=messaging.Notification(title="A favourite book changed", body="Dune Messiah"),
        data={"bookId": "43", "type": "favorite_book_updated"},
    )
    batch = messaging.send_each_for_multicast(multicast, app=app)
    results = []
    for response in batch.responses:
        if response.success:
            results.append({"success": True, "messageId": response.message_id})
        else:
            error = response.exception
            results.append({
                "success": False, "exception": type(error).__name__, "code": error.code,
                "unregistered": isinstance(error, messaging.UnregisteredError),
                "firebaseError": isinstance(error, exceptions.FirebaseError),
                "status": error.http_response.status_code if error.http_response is not None else None,
            })
    report["multicast"] = results
    if batch.success_count != 2 or batch.failure_count != 1:
        fail("send_each_for_multicast: %s" % results)
    if not results[1].get("unregistered"):
        fail("the unregistered token's error is not an UnregisteredError: %s" % results[1])

    fid_message = messaging.Message(
        fid="fid-phone-1",
        notification=messaging.Notification(title="A favourite book changed", body="Dune Messiah"),
        data={"$numberLong": "5"},
    )
    report["fidMessage"] = messaging.send(fid_message, app=app)

    try:
        messaging.send(messaging.Message(token="not a token \u2603"), app=app)
        fail("a message to 'not a token' was accepted")
    except exceptions.InvalidArgumentError as error:
        report["malformedToken"] = {
            "exception": type(error).__name__, "code": error.code, "message": str(error),
            "status": error.http_response.status_code if error.http_response is not None else None,
        }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
