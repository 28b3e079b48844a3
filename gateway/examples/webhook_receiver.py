"""A receiver of the Operator Ingest API's webhook, for an operator's engineer to copy.

The service sends one event, `booking.changed`: a hint to pull GET /bookings, never the booking
itself. This server checks each hint's `Service-Signature` with Stripe's own verifier (the scheme is
the same: `t=<unix>,v1=<hex HMAC-SHA256 of "<t>." + the raw body>`, keyed with the `whsec_` secret,
`t` at most 300 s old). A hint that fails is answered 401 and nothing else is done. A good one is
answered 204 at once (the sender gives up after 5 s) and wakes a background thread that pulls the
feed with the spec's polling pattern: load the saved cursor; GET {base_url}/bookings?since=&limit=;
store the rows keyed on `reference`; save `next` only after the page is stored; again while
has_more. One pull runs at a time, and hints that arrive meanwhile make one more pull, not one each.
Hints can be lost or switched off, so the thread also pulls at start and every POLL_SECONDS.

    python3 -m venv venv && venv/bin/pip install -r gateway/examples/requirements.txt
    INGEST_BASE_URL=https://<api host>/v1 INGEST_CREDENTIAL=pk_api_….pk_sec_… WEBHOOK_SECRET=whsec_… \
        TLS_CERT=fullchain.pem TLS_KEY=privkey.pem venv/bin/python gateway/examples/webhook_receiver.py

Settings, all from the environment (secrets stay out of the process list): INGEST_BASE_URL (ends in
/v1), INGEST_CREDENTIAL and WEBHOOK_SECRET, required; LISTEN_ADDR (default 0.0.0.0:8443: the service
sends to port 443 only, so forward it or listen there); TLS_CERT and TLS_KEY (PEM files; without them
it serves plain HTTP, for TLS terminated in front of it); INGEST_CA_FILE (PEM roots for reaching the
API, instead of the system's); STATE_DB (the SQLite file, default bookings.sqlite3); POLL_SECONDS
(default 300; 0: only at start and on hints). It prints `listening on <url>`, then per page pulled
`pulled <n> booking(s)` and per row `stored booking <reference>`.
"""

import json
import os
import socket
import sqlite3
import ssl
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import stripe

PAGE_SIZE = 200
TOLERANCE_SECONDS = 300
MAX_BODY = 64 * 1024  # a hint is about 150 bytes


def setting(name, default=None):
    value = os.environ.get(name) or default
    if value is None:
        sys.exit(f"{name} is not set (see the top of {sys.argv[0]})")
    return value


class Feed:
    """The bookings feed, pulled by one thread of its own; `hint()` asks it for a pull."""

    def __init__(self, base_url, credential, ca_file, state_db, poll_seconds):
        self.url = base_url.rstrip("/") + "/bookings"
        self.authorization = f"Bearer {credential}"
        self.tls = ssl.create_default_context(cafile=ca_file)
        self.state_db = state_db
        self.poll_seconds = poll_seconds or None
        self.wanted = threading.Event()
        self.wanted.set()  # a pull at start: what changed while this server was down

    def hint(self):
        self.wanted.set()

    def run(self):
        db = sqlite3.connect(self.state_db)  # used by this thread alone
        db.execute("CREATE TABLE IF NOT EXISTS bookings (reference TEXT PRIMARY KEY, booking TEXT NOT NULL)")
        db.execute("CREATE TABLE IF NOT EXISTS cursor (id INTEGER PRIMARY KEY CHECK (id = 1), next TEXT NOT NULL)")
        db.commit()
        while True:
            self.wanted.wait(self.poll_seconds)
            # Cleared before the pull: hints that arrive during it set it again, and make one more.
            self.wanted.clear()
            try:
                self.drain(db)
            except Exception as error:  # the next hint or the timer tries again
                print(f"pull failed: {error!r}", file=sys.stderr, flush=True)

    def drain(self, db):
        while True:
            saved = db.execute("SELECT next FROM cursor").fetchone()
            query = {"limit": PAGE_SIZE, **({"since": saved[0]} if saved else {})}
            request = urllib.request.Request(
                f"{self.url}?{urllib.parse.urlencode(query)}", headers={"Authorization": self.authorization}
            )
            try:
                with urllib.request.urlopen(request, timeout=30, context=self.tls) as response:
                    page = json.load(response)
            except urllib.error.HTTPError as error:
                if error.code in (429, 503):  # busy: wait as told, then go on
                    time.sleep(retry_after(error.headers))
                    continue
                raise  # 401 (the credential) or 422 (the saved cursor): a person must look
            # The rows, then the cursor, in one transaction: a crash keeps both or neither (and a
            # page pulled again is harmless: rows are keyed on reference).
            with db:
                db.executemany(
                    "INSERT INTO bookings VALUES (?, ?) ON CONFLICT (reference) DO UPDATE SET booking = excluded.booking",
                    [(booking["reference"], json.dumps(booking)) for booking in page["bookings"]],
                )
                db.execute(
                    "INSERT INTO cursor VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET next = excluded.next",
                    (page["next"],),
                )
            print(f"pulled {len(page['bookings'])} booking(s)", flush=True)
            for booking in page["bookings"]:
                print(f"stored booking {booking['reference']}", flush=True)
            if not page["has_more"]:
                return


def retry_after(headers):
    try:
        return max(1, int(headers.get("Retry-After", "5")))
    except ValueError:
        return 5


def hint_handler(secret, feed):
    class Hint(BaseHTTPRequestHandler):
        timeout = 10  # a client that stalls (in the TLS handshake too) is dropped

        def do_POST(self):
            try:
                length = int(self.headers.get("Content-Length", "0"))
            except ValueError:
                return self.answer(400)
            if not 0 <= length <= MAX_BODY:
                return self.answer(413)
            payload = self.rfile.read(length)  # the raw bytes: the signature covers exactly these
            try:
                stripe.WebhookSignature.verify_header(
                    payload, self.headers.get("Service-Signature"), secret, tolerance=TOLERANCE_SECONDS
                )
            except (stripe.SignatureVerificationError, ValueError):  # ValueError: a body not UTF-8
                return self.answer(401)
            # Any verified hint is a reason to pull; its body names a booking, but the feed has them all.
            feed.hint()
            self.answer(204)

        def answer(self, status):
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()

    return Hint


class Server(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        # One line, not a traceback, for a client that fails the TLS handshake or goes away.
        print(f"connection from {client_address[0]} failed: {sys.exc_info()[1]!r}", file=sys.stderr, flush=True)


def main():
    secret = setting("WEBHOOK_SECRET")
    feed = Feed(
        setting("INGEST_BASE_URL"),
        setting("INGEST_CREDENTIAL"),
        os.environ.get("INGEST_CA_FILE") or None,
        setting("STATE_DB", "bookings.sqlite3"),
        float(setting("POLL_SECONDS", "300")),
    )
    host, _, port = setting("LISTEN_ADDR", "0.0.0.0:8443").rpartition(":")
    host = host.strip("[]")
    Server.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
    server = Server((host, int(port)), hint_handler(secret, feed))
    scheme = "http"
    if os.environ.get("TLS_CERT"):
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(setting("TLS_CERT"), setting("TLS_KEY"))
        # The handshake happens in each connection's own thread, on its first read: a slow client
        # holds up no other.
        server.socket = tls.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
        scheme = "https"
    threading.Thread(target=feed.run, name="feed", daemon=True).start()
    print(f"listening on {scheme}://{host}:{server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
