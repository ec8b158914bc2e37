"""The push benchmark's peer: firebase-admin's send_each_for_multicast against the same local fake FCM.

Usage: firebase_admin_peer.py BASE_URL SERVICE_ACCOUNT_JSON TOKENS BATCH
firebase-admin has no endpoint setting: its FCM URL is a class attribute, replaced here, and the service
account's token_uri points at the fake too. The fake's self-signed certificate is trusted through
REQUESTS_CA_BUNDLE, which the benchmark sets. Prints `messages=N seconds=S failures=F peak_rss_kb=K`.
"""
import resource
import sys
import time

import firebase_admin
from firebase_admin import credentials, messaging


def main():
    base_url, account_path, total, batch = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    messaging._MessagingService.FCM_URL = base_url + "/v1/projects/{0}/messages:send"
    app = firebase_admin.initialize_app(credentials.Certificate(account_path))
    tokens = ["token-%05d" % i for i in range(total)]

    def multicast(chunk):
        return messaging.MulticastMessage(
            tokens=chunk,
            notification=messaging.Notification(title="A favourite book changed", body="Dune Messiah"),
            data={"bookId": "42", "type": "favorite_book_updated"},
        )

    # Warm up: the access token and a connection, as the Swift side does.
    messaging.send_each_for_multicast(multicast(tokens[:1]), app=app)
    failures = 0
    start = time.monotonic()
    for i in range(0, total, batch):
        response = messaging.send_each_for_multicast(multicast(tokens[i:i + batch]), app=app)
        failures += response.failure_count
    seconds = time.monotonic() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print("messages=%d seconds=%.6f failures=%d peak_rss_kb=%d" % (total, seconds, failures, peak))


if __name__ == "__main__":
    main()
