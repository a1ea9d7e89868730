"""User tokens at the web gateway, end to end: a real rowcastd and a real `rowcast serve` with
an HS256 secret file, tokens signed here with the standard library (hmac), as an identity
provider would sign them.

Covers: no token, an expired one, a wrong signature, a feed outside the token's globs, a
read-only token selecting (401/403 with the gateway's JSON error shape and codes), a select
whose action event names the token's user as its requester, a stream closed with a
`token_expired` event, a refresh over the open WebSocket, the token failures in /metrics, and
the refusal to start beyond loopback without a token key; the index's links carrying the token
the page was opened with; `aud` and `iss` when the gateway is given them; unusable key files
refused at start and by `rowcastd --check-config`, naming the file and why.
"""
import base64
import hashlib
import hmac
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import unittest
import urllib.error
import urllib.request

import websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_support import BUILD_DIR, Control, Gateway, RowcastDaemon, product  # noqa: E402

WAIT_SECONDS = 10
SECRET = b"a gateway secret of at least 32 bytes, for tests"
JSON_TYPE = {"Content-Type": "application/json"}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def token(user, feeds, expires_in=300, secret=SECRET, **extra):
    """An HS256 JWT for `user`, granting `feeds`, expiring in `expires_in` seconds."""
    header = b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    claims = dict({"sub": user, "exp": int(time.time() + expires_in), "feeds": feeds}, **extra)
    payload = b64url(json.dumps(claims).encode())
    signature = hmac.new(secret, ("%s.%s" % (header, payload)).encode(), hashlib.sha256).digest()
    return "%s.%s.%s" % (header, payload, b64url(signature))


ALICE = {"cars*": ["read", "select"], "news": ["read"]}


class AnyMessage:
    """Equal to any non-empty string: a refusal's message, which says what to do."""

    def __eq__(self, other):
        return isinstance(other, str) and bool(other)


ANY_MESSAGE = AnyMessage()


def bearer(value, **headers):
    return dict(headers, Authorization="Bearer " + value)


class GatewayTokenTest(unittest.TestCase):
    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="rowcast-tokens-")
        self.secret_file = os.path.join(self.directory, "gateway.secret")
        with open(self.secret_file, "wb") as file:
            file.write(SECRET + b"\n")
        os.chmod(self.secret_file, 0o600)
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        for feed in ("cars", "news", "other"):
            self.assertTrue(self.control.request({"op": "upsert", "feed": feed, "item": product("1", sort=1)})["ok"])
        self.gateway = Gateway(self.daemon, extra_args=["--token-secret-file", self.secret_file])
        self.addCleanup(self.gateway.stop)

    def tearDown(self):
        for name in os.listdir(self.directory):
            os.unlink(os.path.join(self.directory, name))
        os.rmdir(self.directory)

    def error(self, method, path, headers=None, body=None):
        """(status, error code) of a request the gateway refuses."""
        code, kind, text = self.gateway.request(method, path, body=body, headers=headers)
        self.assertIn("application/json", kind, text)
        return code, json.loads(text)["error"]["code"]

    def select(self, feed, headers):
        return self.gateway.request("POST", "/feeds/%s/rows/1/select" % feed, body=b"{}", headers=headers)

    def test_no_token_an_expired_one_or_a_wrong_signature_is_401(self):
        stream = "/feeds/cars/stream"
        self.assertEqual(self.error("GET", stream), (401, "token_missing"))
        self.assertEqual(self.error("POST", "/feeds/cars/rows/1/select", JSON_TYPE, b"{}"), (401, "token_missing"))
        expired = token("alice", ALICE, expires_in=-10)
        self.assertEqual(self.error("GET", stream, bearer(expired)), (401, "token_expired"))
        self.assertEqual(self.error("GET", stream + "?access_token=" + expired), (401, "token_expired"))
        forged = token("alice", ALICE, secret=b"not the gateway's secret, 32 bytes or more")
        self.assertEqual(self.error("GET", stream, bearer(forged)), (401, "token_invalid"))
        self.assertEqual(self.error("GET", stream, bearer("not.a.jwt")), (401, "token_invalid"))
        # A WebSocket (whose refused upgrade a browser could not see) is told why, then closed.
        for value, reason in ((None, "token_missing"), (expired, "token_expired"), (forged, "token_invalid")):
            socket = websocket.create_connection(self.gateway.url.replace("http://", "ws://") + stream,
                                                 timeout=WAIT_SECONDS,
                                                 header=["Authorization: Bearer " + value] if value else [])
            self.addCleanup(socket.close)
            self.assertEqual(json.loads(socket.recv()), {
                "event": "closed", "feed": "cars", "reason": reason, "message": ANY_MESSAGE})
            opcode, data = socket.recv_data(control_frame=True)
            self.assertEqual(opcode, websocket.ABNF.OPCODE_CLOSE)
            self.assertEqual((int.from_bytes(data[:2], "big"), data[2:].decode()), (1008, reason))
        self.assertEqual(self.gateway.get("/feeds/cars")[0], 401, "the page needs a token too")
        self.assertEqual(self.gateway.get("/")[0], 401, "the index needs a token too")
        # Nothing of a refused select reached the daemon.
        self.assertEqual(self.control.request({"op": "events", "feed": "cars"})["events"], [])

    def test_a_feed_outside_the_globs_or_a_missing_permission_is_403(self):
        alice = token("alice", ALICE)
        self.assertEqual(self.error("GET", "/feeds/other/stream", bearer(alice)), (403, "forbidden"))
        self.assertEqual(self.error("POST", "/feeds/other/rows/1/select", bearer(alice, **JSON_TYPE), b"{}"),
                         (403, "forbidden"))
        self.assertEqual(self.error("POST", "/feeds/news/rows/1/select", bearer(alice, **JSON_TYPE), b"{}"),
                         (403, "forbidden"), "a read-only grant selecting")
        self.assertEqual(self.control.request({"op": "events", "feed": "news"})["events"], [])
        code, _, body = self.gateway.get("/", headers=bearer(alice))
        self.assertEqual(code, 200, body)
        self.assertIn('href="/feeds/cars"', body)
        self.assertNotIn('href="/feeds/other"', body, "the index lists only the feeds the token reads")

    def test_a_select_runs_as_the_tokens_user(self):
        code, _, text = self.select("cars", bearer(token("alice", ALICE), **JSON_TYPE))
        self.assertEqual(code, 200, text)
        self.assertTrue(json.loads(text)["ok"], text)
        events = self.control.request({"op": "events", "feed": "cars"})["events"]
        self.assertEqual([event["requester"] for event in events], ["alice"])

    def test_a_stream_is_served_with_a_token_in_the_header_or_the_query(self):
        alice = token("alice", ALICE)
        request = urllib.request.Request(self.gateway.url + "/feeds/cars/stream?access_token=" + alice)
        with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
            line = response.readline().decode()
            self.assertTrue(line.startswith("data: "), line)
            self.assertEqual(json.loads(line[len("data: "):])["event"], "snapshot")
        socket = self.open_socket(alice)
        self.assertEqual(self.next_event(socket)["event"], "snapshot")
        socket.close()

    def open_socket(self, value):
        url = self.gateway.url.replace("http://", "ws://") + "/feeds/cars/stream"
        socket = websocket.create_connection(url, timeout=WAIT_SECONDS, header=["Authorization: Bearer " + value])
        self.addCleanup(socket.close)
        return socket

    def next_event(self, socket, predicate=lambda event: True):
        deadline = time.monotonic() + WAIT_SECONDS
        while time.monotonic() < deadline:
            socket.settimeout(max(0.05, deadline - time.monotonic()))
            event = json.loads(socket.recv())
            if predicate(event):
                return event
        raise AssertionError("timed out")

    def test_a_stream_whose_token_expires_ends_with_the_reason(self):
        socket = self.open_socket(token("alice", ALICE, expires_in=2))
        closed = self.next_event(socket, lambda event: event.get("event") == "closed")
        self.assertEqual(closed["reason"], "token_expired")
        socket.settimeout(WAIT_SECONDS)
        with self.assertRaises(websocket.WebSocketConnectionClosedException):
            while True:
                socket.recv()
        metrics = self.gateway.get("/metrics")[2]
        self.assertIn('rowcast_gateway_token_failures_total{reason="token_expired"} 1', metrics)

    def test_a_fresh_token_over_the_open_websocket_keeps_the_stream(self):
        first = token("alice", ALICE, expires_in=3)
        socket = self.open_socket(first)
        self.assertEqual(self.next_event(socket)["event"], "snapshot")
        socket.send(json.dumps({"type": "token", "token": token("bob", ALICE, expires_in=600)}))
        refused = self.next_event(socket, lambda event: event.get("type") == "error")
        self.assertEqual(refused["code"], "token_user_changed")
        fresh = token("alice", ALICE, expires_in=600)
        socket.send(json.dumps({"type": "token", "token": fresh}))
        answer = self.next_event(socket, lambda event: event.get("type") in ("token", "error"))
        self.assertEqual(answer, {"type": "token", "user": "alice", "expires": json.loads(
            base64.urlsafe_b64decode(fresh.split(".")[1] + "==").decode())["exp"]})
        # Past the first token's expiry, the stream still delivers.
        time.sleep(4)
        reply = self.control.request({"op": "upsert", "feed": "cars", "item": product("2", sort=2)})
        delta = self.next_event(socket, lambda event: event.get("event") in ("delta", "closed"))
        self.assertEqual((delta["event"], delta["seq"]), ("delta", reply["seq"]))

    def test_a_fresh_token_without_the_streams_feed_is_refused_and_the_old_one_stays(self):
        socket = self.open_socket(token("alice", ALICE, expires_in=3))
        self.assertEqual(self.next_event(socket)["event"], "snapshot")
        # Fewer feeds, cars among them: taken.
        socket.send(json.dumps({"type": "token", "token": token("alice", {"cars": ["read"]}, expires_in=4)}))
        answer = self.next_event(socket, lambda event: event.get("type") in ("token", "error"))
        self.assertEqual((answer["type"], answer["user"]), ("token", "alice"))
        # Fewer feeds, cars not among them: refused, and the token in force (4 s) stays.
        socket.send(json.dumps({"type": "token", "token": token("alice", {"news": ["read"]}, expires_in=600)}))
        refused = self.next_event(socket, lambda event: event.get("type") in ("token", "error"))
        self.assertEqual((refused["type"], refused["code"]), ("error", "forbidden"))
        self.assertIn("cars", refused["message"])
        reply = self.control.request({"op": "upsert", "feed": "cars", "item": product("2", sort=2)})
        delta = self.next_event(socket, lambda event: event.get("event") in ("delta", "closed"))
        self.assertEqual((delta["event"], delta["seq"]), ("delta", reply["seq"]))
        closed = self.next_event(socket, lambda event: event.get("event") == "closed")
        self.assertEqual(closed["reason"], "token_expired", "the refused token did not extend the stream")

    def test_the_socket_needs_a_token_and_checks_each_subscription(self):
        url = self.gateway.url.replace("http://", "ws://") + "/socket"
        refused = websocket.create_connection(url, timeout=WAIT_SECONDS)
        self.addCleanup(refused.close)
        closed = self.next_event(refused)
        self.assertEqual((closed["event"], closed["reason"]), ("closed", "token_missing"))
        socket = websocket.create_connection(
            url + "?access_token=" + token("alice", ALICE, expires_in=600), timeout=WAIT_SECONDS)
        self.addCleanup(socket.close)
        socket.send(json.dumps({"type": "subscribe", "feed": "other"}))
        forbidden = self.next_event(socket, lambda event: event.get("event") == "error")
        self.assertEqual((forbidden["code"], forbidden["feed"]), ("forbidden", "other"))
        socket.send(json.dumps({"type": "subscribe", "feed": "cars", "window": {"limit": 10}}))
        self.assertEqual(self.next_event(socket)["event"], "window")
        socket.send(json.dumps({"type": "token", "token": token("bob", ALICE)}))
        answer = self.next_event(socket, lambda event: event.get("type") == "token")
        self.assertEqual((answer["event"], answer["code"]), ("error", "token_user_changed"))
        socket.send(json.dumps({"type": "token", "token": token("alice", ALICE, expires_in=900)}))
        self.assertEqual(self.next_event(socket, lambda event: event.get("event") == "token")["user"], "alice")
        # A fresh token that no longer grants cars ends the cars window.
        socket.send(json.dumps({"type": "token", "token": token("alice", {"news": ["read"]}, expires_in=900)}))
        dropped = self.next_event(socket, lambda event: event.get("event") == "error")
        self.assertEqual((dropped["code"], dropped["feed"]), ("forbidden", "cars"))

    def test_the_pages_links_carry_the_token_the_page_was_opened_with(self):
        alice = token("alice", ALICE)
        request = urllib.request.Request(self.gateway.url + "/?access_token=" + alice)
        with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
            self.assertEqual(response.headers.get("Referrer-Policy"), "no-referrer")
            index = response.read().decode()
        links = re.findall(r'href="([^"]*)"', index)
        feed_links = [link for link in links if link.startswith("/feeds/")]
        # alice reads cars and news, not other: her index lists those two, each carrying her token.
        self.assertEqual(feed_links, ["/feeds/cars?access_token=" + alice, "/feeds/news?access_token=" + alice])
        for link in feed_links:
            code, _, page = self.gateway.get(link)
            self.assertEqual(code, 200, page)
            self.assertIn('href="/?access_token=%s"' % alice, page, "the feed page's link back to the index")
        # Let in by a header, the page has no token of its own to carry: its links carry none.
        code, _, index = self.gateway.get("/", headers=bearer(alice))
        self.assertEqual(code, 200, index)
        self.assertNotIn("access_token", index)
        self.assertIn('href="/feeds/cars"', index)

    def test_token_failures_are_counted_by_reason(self):
        self.gateway.get("/feeds/cars/stream")
        self.gateway.get("/feeds/cars/stream", headers=bearer("x.y.z"))
        self.gateway.get("/feeds/other/stream", headers=bearer(token("alice", ALICE)))
        metrics = self.gateway.get("/metrics")[2]
        for reason in ("token_missing", "token_invalid", "forbidden"):
            self.assertIn('rowcast_gateway_token_failures_total{reason="%s"} 1' % reason, metrics)


class GatewayAudienceTest(unittest.TestCase):
    """--token-audience and --token-issuer: a token must name them."""

    def setUp(self):
        self.directory = tempfile.mkdtemp(prefix="rowcast-tokens-")
        self.addCleanup(shutil.rmtree, self.directory, True)
        secret_file = os.path.join(self.directory, "gateway.secret")
        with open(secret_file, "wb") as file:
            file.write(SECRET)
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        control = Control(self.daemon)
        self.addCleanup(control.close)
        self.assertTrue(control.request({"op": "upsert", "feed": "cars", "item": product("1", sort=1)})["ok"])
        self.gateway = Gateway(self.daemon, extra_args=[
            "--token-secret-file", secret_file, "--token-audience", "feeds.test", "--token-issuer", "https://id.test"])
        self.addCleanup(self.gateway.stop)

    def test_a_token_must_name_the_audience_and_the_issuer(self):
        for aud in ("feeds.test", ["other.test", "feeds.test"]):
            code, _, text = self.gateway.get(
                "/feeds/cars", headers=bearer(token("alice", ALICE, aud=aud, iss="https://id.test")))
            self.assertEqual(code, 200, (aud, text))
        refused = [
            ({"iss": "https://id.test"}, '"aud"'),
            ({"aud": "other.test", "iss": "https://id.test"}, '"aud"'),
            ({"aud": ["other.test", "more.test"], "iss": "https://id.test"}, '"aud"'),
            ({"aud": "feeds.test"}, '"iss"'),
            ({"aud": "feeds.test", "iss": "https://evil.test"}, '"iss"'),
        ]
        for claims, named in refused:
            code, _, text = self.gateway.request(
                "POST", "/feeds/cars/rows/1/select", body=b"{}",
                headers=bearer(token("alice", ALICE, **claims), **JSON_TYPE))
            self.assertEqual(code, 401, (claims, text))
            error = json.loads(text)["error"]
            self.assertEqual(error["code"], "token_invalid", claims)
            self.assertIn(named, error["message"], claims)


class EmbeddedGatewayTokenTest(unittest.TestCase):
    """rowcastd's own gateway (on its HTTP endpoint) with http_token_secret_files."""

    def test_rowcastd_gateway_needs_a_token_and_selects_as_its_user(self):
        directory = tempfile.mkdtemp(prefix="rowcast-tokens-")
        secret_file = os.path.join(directory, "gateway.secret")
        with open(secret_file, "wb") as file:
            file.write(SECRET)
        self.addCleanup(os.rmdir, directory)
        self.addCleanup(os.unlink, secret_file)
        daemon = RowcastDaemon(
            http=True, extra_args=["--http-token-secret-file", secret_file, "--http-token-audience", "feeds.test"])
        self.addCleanup(daemon.close)
        control = Control(daemon)
        self.addCleanup(control.close)
        self.assertTrue(control.request({"op": "upsert", "feed": "cars", "item": product("1", sort=1)})["ok"])
        url = "http://" + daemon.endpoints["http"].split("://", 1)[1]

        def post(headers):
            request = urllib.request.Request(url + "/feeds/cars/rows/1/select", data=b"{}", method="POST",
                                             headers=dict(headers, **JSON_TYPE))
            try:
                with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as response:
                    return response.status, json.loads(response.read())
            except urllib.error.HTTPError as error:
                return error.code, json.loads(error.read())

        code, body = post({})
        self.assertEqual((code, body["error"]["code"]), (401, "token_missing"))
        code, body = post(bearer(token("carol", ALICE, aud="other.test")))
        self.assertEqual((code, body["error"]["code"]), (401, "token_invalid"), "http_token_audience")
        code, body = post(bearer(token("carol", ALICE, aud=["feeds.test"])))
        self.assertEqual(code, 200, body)
        events = control.request({"op": "events", "feed": "cars"})["events"]
        self.assertEqual([event["requester"] for event in events], ["carol"])


class GatewayTokenSetupTest(unittest.TestCase):
    def serve(self, *args):
        """(exit status, standard error) of `rowcast serve ARGS` that must refuse to start."""
        process = subprocess.run(
            [os.path.join(BUILD_DIR, "rowcast"), "serve", "--control", "tcp://127.0.0.1:1",
             "--publish", "tcp://127.0.0.1:2", *args],
            stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        return process.returncode, process.stderr.decode()

    def test_beyond_loopback_without_a_token_key_it_refuses_to_start(self):
        status, stderr = self.serve("--http", "0.0.0.0:0")
        self.assertEqual(status, 78, stderr)
        self.assertEqual(len(stderr.strip().splitlines()), 1, stderr)
        self.assertIn("--token-secret-file", stderr)

    def test_tokens_over_plain_http_beyond_loopback_are_refused(self):
        with tempfile.NamedTemporaryFile() as secret:
            secret.write(SECRET)
            secret.flush()
            status, stderr = self.serve("--http", "0.0.0.0:0", "--token-secret-file", secret.name)
        self.assertEqual(status, 78, stderr)
        self.assertIn("TLS", stderr)

    def test_rowcastd_beyond_loopback_without_a_token_key_refuses_to_start(self):
        state = tempfile.mkdtemp(prefix="rowcast-tokens-state-")
        try:
            process = subprocess.run(
                [os.path.join(BUILD_DIR, "rowcastd"), "--ingest", "tcp://127.0.0.1:*", "--control",
                 "tcp://127.0.0.1:*", "--publish", "tcp://127.0.0.1:*", "--http", "tcp://0.0.0.0:0",
                 "--allow-insecure-tcp", "--state-dir", state, "--plugins", state],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        finally:
            shutil.rmtree(state, ignore_errors=True)
        stderr = process.stderr.decode()
        self.assertEqual(process.returncode, 78, stderr)
        self.assertIn("--http-token-secret-file", stderr)

    def bad_key_files(self, directory):
        """(flag kind, path, what the refusal must say) for each way a key file is unusable."""
        short = os.path.join(directory, "short.secret")
        with open(short, "wb") as file:
            file.write(b"only 20 bytes, short")
        not_pem = os.path.join(directory, "not.pem")
        with open(not_pem, "wb") as file:
            file.write(b"-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n")
        return [
            ("secret", os.path.join(directory, "missing.secret"), "no such file"),
            ("secret", directory, "cannot read"),
            ("secret", short, "at least 32 bytes"),
            ("public", not_pem, "not a PEM public key"),
        ]

    def test_serve_refuses_each_unusable_key_file_naming_it_and_why(self):
        directory = tempfile.mkdtemp(prefix="rowcast-keys-")
        self.addCleanup(shutil.rmtree, directory, True)
        for kind, path, why in self.bad_key_files(directory):
            status, stderr = self.serve("--token-%s-file" % ("secret" if kind == "secret" else "public-key"), path)
            self.assertEqual(status, 78, stderr)
            self.assertIn(path, stderr)
            self.assertIn(why, stderr)

    def test_rowcastd_check_config_reads_the_token_keys(self):
        directory = tempfile.mkdtemp(prefix="rowcast-keys-")
        self.addCleanup(shutil.rmtree, directory, True)

        def check(*args):
            process = subprocess.run(
                [os.path.join(BUILD_DIR, "rowcastd"), "--check-config", "--http", "tcp://127.0.0.1:0",
                 "--state-dir", directory, "--plugins", directory, *args],
                stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
            return process.returncode, process.stderr.decode()

        for kind, path, why in self.bad_key_files(directory):
            status, stderr = check("--http-token-%s-file" % ("secret" if kind == "secret" else "public-key"), path)
            self.assertEqual(status, 78, stderr)
            self.assertIn(path, stderr)
            self.assertIn(why, stderr)
        good = os.path.join(directory, "good.secret")
        with open(good, "wb") as file:
            file.write(SECRET)
        status, stderr = check("--http-token-secret-file", good, "--http-token-audience", "feeds.test")
        self.assertEqual(status, 0, stderr)

    def test_a_short_secret_is_refused_naming_the_file(self):
        with tempfile.NamedTemporaryFile() as secret:
            secret.write(b"short")
            secret.flush()
            status, stderr = self.serve("--token-secret-file", secret.name)
        self.assertEqual(status, 78, stderr)
        self.assertIn(secret.name, stderr)


if __name__ == "__main__":
    unittest.main()
