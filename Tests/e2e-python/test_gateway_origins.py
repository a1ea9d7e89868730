#!/usr/bin/env python3
"""Who the HTTP endpoints serve, by the names and pages requests come from
(docs/SECURITY.md, "Browsers"), against `rowcast serve` and rowcastd's own HTTP endpoint (which
serves the same gateway):

- a foreign Host (DNS rebinding) is refused with 421, on every route;
- streams (WebSocket and Server-Sent Events) and selects from another origin, or cross-site
  without an Origin, are refused with 403; a select must be JSON (415 else) and a refused one
  runs no action;
- every response carries nosniff, no framing and a content security policy;
- --allowed-host and --allowed-origin let named ones in, and malformed ones are refused at start.

The headless-browser half (a hostile page of another loopback origin) is in
test_gateway_browser.py. Every wait is bounded; every process is stopped.
"""
import http.client
import json
import os
import subprocess
import sys
import unittest

import websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_support import BUILD_DIR, Control, Gateway, RowcastDaemon, free_port, product  # noqa: E402

FEED = "cars"
WAIT_SECONDS = 10


def call(url, method, path, headers=None, body=None):
    """(status, headers as a dict with lower-case names, body text) of one request, sent with
    exactly `headers` (Host included when given)."""
    host, port = url[len("http://"):].rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=WAIT_SECONDS)
    try:
        connection.putrequest(method, path, skip_host="Host" in (headers or {}), skip_accept_encoding=True)
        for name, value in (headers or {}).items():
            connection.putheader(name, value)
        if body is not None:
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body)
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read().decode()
    finally:
        connection.close()


class OriginChecks:
    """The checks, run by each subclass against its endpoint (`self.url`)."""

    def events(self):
        reply = self.control.request({"op": "events", "feed": FEED})
        return reply["last"]

    def own(self):
        return self.url

    def test_a_foreign_host_is_refused_on_every_route(self):
        port = self.url.rsplit(":", 1)[1]
        for path in self.paths:
            status, headers, body = call(self.url, "GET", path, {"Host": "evil.example:%s" % port})
            self.assertEqual(status, 421, "%s: %s" % (path, body))
            self.assertEqual(json.loads(body)["error"]["code"], "misdirected_request")
            self.assertIn("allowed", json.loads(body)["error"]["message"])
            self.assertEqual(headers.get("x-content-type-options"), "nosniff")
        for name in ("localhost:%s" % port, "127.0.0.1:%s" % port):
            status, _, body = call(self.url, "GET", "/", {"Host": name})
            self.assertEqual(status, 200, "%s: %s" % (name, body))

    def test_every_response_carries_the_security_headers(self):
        for path, expected in (("/", 200), ("/feeds/%s" % FEED, 200), ("/assets/gateway.js", 200),
                               ("/feeds/nope", 404), ("/no/such/route", 404)):
            status, headers, _ = call(self.url, "GET", path, {"Host": self.url[len("http://"):]})
            self.assertEqual(status, expected, path)
            self.assertEqual(headers.get("x-content-type-options"), "nosniff", path)
            self.assertEqual(headers.get("x-frame-options"), "DENY", path)
            self.assertIn("frame-ancestors 'none'", headers.get("content-security-policy", ""), path)
        _, headers, _ = call(self.url, "GET", "/", {"Host": self.url[len("http://"):]})
        self.assertNotIn("img-src *", headers["content-security-policy"])

    def test_a_select_must_be_json_from_the_own_origin_and_a_refused_one_runs_nothing(self):
        host = self.url[len("http://"):]
        path = "/feeds/%s/rows/1/select" % FEED
        before = self.events()
        body = b'{"action":"select"}'
        refused = [
            ({"Host": host}, 415),
            ({"Host": host, "Content-Type": "text/plain"}, 415),
            ({"Host": host, "Content-Type": "application/x-www-form-urlencoded"}, 415),
            ({"Host": host, "Content-Type": "application/json", "Origin": "http://127.0.0.1:%d" % free_port()}, 403),
            ({"Host": host, "Content-Type": "application/json", "Origin": "null"}, 403),
            ({"Host": host, "Content-Type": "application/json", "Sec-Fetch-Site": "cross-site"}, 403),
            ({"Host": host, "Content-Type": "application/json", "Sec-Fetch-Site": "same-site"}, 403),
        ]
        for headers, expected in refused:
            status, _, text = call(self.url, "POST", path, headers, body)
            self.assertEqual(status, expected, "%r: %s" % (headers, text))
        self.assertEqual(self.events(), before, "a refused select ran the action")
        status, _, text = call(self.url, "POST", path,
                               {"Host": host, "Content-Type": "application/json", "Origin": self.own()}, body)
        self.assertEqual(status, 200, text)
        self.assertEqual(self.events(), before + 1)

    def test_streams_must_come_from_the_own_origin(self):
        ws_url = self.url.replace("http://", "ws://") + "/feeds/%s/stream" % FEED
        foreign = "http://127.0.0.1:%d" % free_port()
        # Refused before the upgrade; Hummingbird answers every refused upgrade with a bare 400.
        with self.assertRaises(websocket.WebSocketBadStatusException) as refused:
            websocket.create_connection(ws_url, timeout=WAIT_SECONDS, origin=foreign)
        self.assertEqual(refused.exception.status_code, 400)
        own = websocket.create_connection(ws_url, timeout=WAIT_SECONDS, origin=self.own())
        try:
            self.assertEqual(json.loads(own.recv())["event"], "snapshot")
        finally:
            own.close()
        # The socket of several feeds is checked as the stream is.
        socket_url = self.url.replace("http://", "ws://") + "/socket"
        with self.assertRaises(websocket.WebSocketBadStatusException) as refused:
            websocket.create_connection(socket_url, timeout=WAIT_SECONDS, origin=foreign)
        self.assertEqual(refused.exception.status_code, 400)
        own = websocket.create_connection(socket_url, timeout=WAIT_SECONDS, origin=self.own())
        try:
            own.send(json.dumps({"type": "subscribe", "feed": FEED, "window": {"offset": 0, "limit": 5}}))
            self.assertEqual(json.loads(own.recv())["event"], "window")
        finally:
            own.close()
        host = self.url[len("http://"):]
        stream = "/feeds/%s/stream" % FEED
        for headers in ({"Host": host, "Origin": foreign}, {"Host": host, "Sec-Fetch-Site": "cross-site"}):
            status, _, text = call(self.url, "GET", stream, headers)
            self.assertEqual(status, 403, "%r: %s" % (headers, text))
            self.assertIn("allow", json.loads(text)["error"]["message"])


class ServeOriginTest(OriginChecks, unittest.TestCase):
    paths = ("/", "/feeds/%s" % FEED, "/feeds/%s/stream" % FEED, "/assets/gateway.js")

    def setUp(self):
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        self.control.request({"op": "upsert", "feed": FEED, "item": product("1", sort=1)})
        self.gateway = Gateway(self.daemon)
        self.addCleanup(self.gateway.stop)
        self.url = self.gateway.url

    def test_allowed_hosts_and_origins_are_served(self):
        other = "http://127.0.0.1:%d" % free_port()
        gateway = Gateway(self.daemon, extra_args=["--allowed-host", ".feeds.test", "--allowed-origin", other])
        self.addCleanup(gateway.stop)
        port = gateway.url.rsplit(":", 1)[1]
        for name, expected in (("feeds.test", 200), ("a.feeds.test", 200), ("feeds.test.evil", 421)):
            status, _, _ = call(gateway.url, "GET", "/", {"Host": "%s:%s" % (name, port)})
            self.assertEqual(status, expected, name)
        ws_url = gateway.url.replace("http://", "ws://") + "/feeds/%s/stream" % FEED
        allowed = websocket.create_connection(ws_url, timeout=WAIT_SECONDS, origin=other)
        allowed.close()

    def test_images_load_only_from_configured_origins(self):
        host = self.url[len("http://"):]
        _, headers, _ = call(self.url, "GET", "/feeds/%s" % FEED, {"Host": host})
        self.assertIn("img-src 'self' data:;", headers["content-security-policy"])
        gateway = Gateway(self.daemon, extra_args=["--image-origin", "https://img.example.com"])
        self.addCleanup(gateway.stop)
        _, headers, _ = call(gateway.url, "GET", "/feeds/%s" % FEED, {"Host": gateway.url[len("http://"):]})
        self.assertIn("img-src 'self' data: https://img.example.com;", headers["content-security-policy"])

    def test_malformed_allowed_hosts_and_origins_are_refused_at_start(self):
        for flag, value in (("--allowed-host", "http://x"), ("--allowed-origin", "app.example.com"),
                            ("--image-origin", "img.example.com; script-src *")):
            result = subprocess.run(
                [os.path.join(BUILD_DIR, "rowcast"), "serve", "--http", "127.0.0.1:0", flag, value],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=WAIT_SECONDS)
            self.assertEqual(result.returncode, 64, result.stderr)
            self.assertIn(flag, result.stderr)
            self.assertIn(value, result.stderr)


class DaemonHTTPOriginTest(OriginChecks, unittest.TestCase):
    paths = ("/", "/feeds/%s" % FEED, "/feeds/%s/stream" % FEED, "/metrics", "/healthz")

    def setUp(self):
        self.daemon = RowcastDaemon(http=True)
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        self.control.request({"op": "upsert", "feed": FEED, "item": product("1", sort=1)})
        self.url = "http://" + self.daemon.endpoints["http"][len("tcp://"):]

    def test_metrics_and_health_are_served_to_their_own_names(self):
        host = self.url[len("http://"):]
        for path in ("/metrics", "/healthz"):
            status, headers, _ = call(self.url, "GET", path, {"Host": host})
            self.assertEqual(status, 200, path)
            self.assertEqual(headers.get("x-content-type-options"), "nosniff")


if __name__ == "__main__":
    unittest.main(verbosity=2)
