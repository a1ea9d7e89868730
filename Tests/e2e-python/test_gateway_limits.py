#!/usr/bin/env python3
"""What one client may hold of the HTTP endpoints (docs/SECURITY.md, "Browsers";
docs/OPERATIONS.md, "HTTP connection limits"), against `rowcast serve` and rowcastd's own HTTP
endpoint (which serves the same gateway), each started with small limits: a 1 s header timeout,
a 3 s idle timeout, a 2 s write timeout, 6 connections per address.

- a request head that arrives in part, or trickles in byte by byte, is answered 408 and closed
  within the header timeout while other clients are served; a connection that sends nothing is
  closed; a later head on a kept-alive connection has the same deadline;
- a kept-alive connection with nothing to do is closed after the idle timeout;
- a 200 kB header is answered 431 and the connection closed (a 16 kB one is served); a
  malformed first request is answered 400 and closed;
- the connection over the per-address cap is closed unanswered, a flood of them writes one log
  line, and the address is served again once one of its connections has closed;
- a stream (Server-Sent Events and WebSocket) whose client stops reading while deltas pile up
  (so that it overflows, with `rowcast serve --connection-buffer 8`) is reset within the write
  timeout, and the endpoint goes on serving;
- limits outside their ranges are refused at start, naming the flag or key.

Every wait is bounded; every process is stopped; every socket is closed.
"""
import http.client
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import unittest

import websocket

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gateway_support import BUILD_DIR, Control, Gateway, RowcastDaemon, product  # noqa: E402

FEED = "cars"
WAIT_SECONDS = 10
HEADER_TIMEOUT = 1.0
IDLE_TIMEOUT = 3.0
WRITE_TIMEOUT = 2.0
PEER_LIMIT = 6
# What a loaded machine may add to a deadline before the test calls it missed.
SLACK = 3.0
TCP_ESTABLISHED = 1
TCP_CLOSE = 7


def tcp_state(sock):
    """The kernel's TCP state of `sock` (tcpi_state, the first byte of TCP_INFO)."""
    return sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 8)[0]


def status_of(data):
    """The status code of the HTTP response that `data` starts with, or None."""
    if not data.startswith(b"HTTP/1.1 "):
        return None
    return int(data.split(b" ", 2)[1])


def body_of(data):
    """The JSON body of the whole HTTP response `data`."""
    return json.loads(data.split(b"\r\n\r\n", 1)[1])


class LimitChecks:
    """The checks, run by each subclass against its endpoint (`self.url`, log in `self.log`)."""

    def setUp(self):
        handle, self.log = tempfile.mkstemp(prefix="rowcast-gw-limits-", suffix=".log")
        os.close(handle)
        self.addCleanup(os.unlink, self.log)
        self.sockets = []
        self.addCleanup(self.close_sockets)

    def close_sockets(self):
        for sock in self.sockets:
            sock.close()

    @property
    def host(self):
        return self.url[len("http://"):]

    def connect(self, receive_buffer=None):
        """A plain TCP connection to the endpoint, closed at cleanup."""
        address, port = self.host.rsplit(":", 1)
        sock = socket.socket()
        self.sockets.append(sock)
        if receive_buffer:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
        sock.settimeout(WAIT_SECONDS)
        sock.connect((address, int(port)))
        return sock

    def get(self, path="/", headers=None):
        """(status, body bytes) of GET `path` on a connection of its own."""
        connection = http.client.HTTPConnection(*self.host.rsplit(":", 1), timeout=WAIT_SECONDS)
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()

    def read_to_end(self, sock, deadline, started):
        """(everything `sock` reads until the server closes it, seconds from `started` until
        then); fails when it is still open at the monotonic `deadline`. A reset ends it too."""
        data = b""
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.fail("the connection is still open %.1f s after it started (read %r)"
                          % (time.monotonic() - started, data[:200]))
            sock.settimeout(remaining)
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                continue
            except ConnectionResetError:
                chunk = b""
            if not chunk:
                return data, time.monotonic() - started
            data += chunk

    def log_lines(self, text, seconds=2.0):
        """The lines of the endpoint's log that contain `text`, once there is one (at most
        `seconds` of waiting for it)."""
        deadline = time.monotonic() + seconds
        while True:
            with open(self.log, errors="replace") as log:
                lines = [line for line in log if text in line]
            if lines or time.monotonic() > deadline:
                return lines
            time.sleep(0.1)

    def open_event_stream(self, receive_buffer=None):
        """A Server-Sent Events stream of the feed whose response head has been read."""
        sock = self.connect(receive_buffer)
        sock.sendall(b"GET /feeds/%s/stream HTTP/1.1\r\nHost: %s\r\n\r\n" % (FEED.encode(), self.host.encode()))
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(1)
            self.assertTrue(chunk, "the stream closed before its head: %r" % head)
            head += chunk
        self.assertEqual(status_of(head), 200, head)
        self.assertIn(b"text/event-stream", head)
        return sock

    def test_a_slow_head_is_answered_408_within_the_header_timeout_while_others_are_served(self):
        partial = self.connect()
        trickle = self.connect()
        silent = self.connect()
        started = time.monotonic()
        partial.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\n" % self.host.encode())
        # The trickle sends a byte every 0.1 s past the deadline: bytes do not move it. Others
        # are served meanwhile.
        trickled = b"GET / HTTP/1.1\r\nHost: %s\r\nX-Slow: %s" % (self.host.encode(), b"x" * 100)
        for index in range(int((HEADER_TIMEOUT + 0.5) / 0.1)):
            try:
                trickle.sendall(trickled[index:index + 1])
            except OSError:
                break
            if index % 4 == 0:
                status, _ = self.get()
                self.assertEqual(status, 200, "another client was not served while heads were slow")
            time.sleep(0.1)
        deadline = started + HEADER_TIMEOUT + SLACK
        for name, sock in (("a partial head", partial), ("a trickling head", trickle)):
            data, elapsed = self.read_to_end(sock, deadline, started)
            self.assertEqual(status_of(data), 408, "%s: %r" % (name, data[:300]))
            self.assertEqual(body_of(data)["error"]["code"], "request_timeout")
            self.assertIn(b"nosniff", data)
            self.assertGreaterEqual(elapsed, HEADER_TIMEOUT - 0.05, "%s was closed before its deadline" % name)
        data, elapsed = self.read_to_end(silent, deadline, started)
        self.assertEqual(data, b"", "a connection that sent nothing is closed without an answer")
        self.assertGreaterEqual(elapsed, HEADER_TIMEOUT - 0.05)
        self.assertTrue(self.log_lines("request head did not arrive in time"), "the timeout was not logged")

    def test_a_later_head_on_a_kept_alive_connection_has_the_same_deadline(self):
        connection = http.client.HTTPConnection(*self.host.rsplit(":", 1), timeout=WAIT_SECONDS)
        self.addCleanup(connection.close)
        connection.request("GET", "/")
        response = connection.getresponse()
        self.assertEqual(response.status, 200)
        response.read()
        # Kept alive: nothing for a while (less than the idle timeout), then a head in part.
        time.sleep(HEADER_TIMEOUT * 1.5)
        started = time.monotonic()
        connection.sock.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\n" % self.host.encode())
        data, elapsed = self.read_to_end(connection.sock, started + HEADER_TIMEOUT + SLACK, started)
        self.assertEqual(status_of(data), 408, data[:300])
        self.assertGreaterEqual(elapsed, HEADER_TIMEOUT - 0.05)

    def test_an_idle_kept_alive_connection_is_closed_after_the_idle_timeout(self):
        connection = http.client.HTTPConnection(*self.host.rsplit(":", 1), timeout=WAIT_SECONDS)
        self.addCleanup(connection.close)
        connection.request("GET", "/")
        response = connection.getresponse()
        self.assertEqual(response.status, 200)
        self.assertNotEqual(response.getheader("Connection", "").lower(), "close")
        response.read()
        started = time.monotonic()
        data, elapsed = self.read_to_end(connection.sock, started + IDLE_TIMEOUT + SLACK, started)
        self.assertEqual(data, b"", "an idle connection is closed without an answer")
        self.assertGreaterEqual(elapsed, IDLE_TIMEOUT - 0.1, "closed before the idle timeout")

    def test_a_200_kB_header_is_answered_431_and_closed(self):
        status, _ = self.get(headers={"X-Big": "a" * 16_000})
        self.assertEqual(status, 200, "a 16 kB header is within the limit")
        sock = self.connect()
        started = time.monotonic()
        sock.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\nX-Big: %s\r\n\r\n" % (self.host.encode(), b"a" * 200_000))
        data, _ = self.read_to_end(sock, started + SLACK + 2, started)
        self.assertEqual(status_of(data), 431, data[:300])
        self.assertEqual(body_of(data)["error"]["code"], "head_too_large")
        self.assertIn(b"Connection: close", data)
        self.assertTrue(self.log_lines("head is too large"), "the refusal was not logged")

    def test_a_malformed_first_request_is_answered_400_and_closed(self):
        for request in (b"garbage garbage\r\n\r\n", b"GET / HTTP/1.1\r\nHost: %s\r\nno colon\r\n\r\n" % self.host.encode()):
            sock = self.connect()
            started = time.monotonic()
            sock.sendall(request)
            data, _ = self.read_to_end(sock, started + SLACK, started)
            self.assertEqual(status_of(data), 400, "%r: %r" % (request, data[:300]))

    def test_connections_per_address_are_capped_and_freed(self):
        streams = [self.open_event_stream() for _ in range(PEER_LIMIT)]
        started = time.monotonic()
        refused = []
        for _ in range(20):
            sock = self.connect()
            try:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: %s\r\n\r\n" % self.host.encode())
            except OSError:
                pass
            refused.append(sock)
        for sock in refused:
            data, elapsed = self.read_to_end(sock, started + SLACK, started)
            self.assertEqual(data, b"", "a connection over the cap was answered")
        lines = self.log_lines("HTTP connection refused")
        self.assertEqual(len(lines), 1, "20 refusals within seconds should write one line: %r" % lines)
        self.assertIn("127.0.0.1", lines[0])
        # One stream goes; the address is served again once the endpoint has seen it go.
        streams[0].close()
        deadline = time.monotonic() + SLACK + 2
        while True:
            try:
                status, _ = self.get()
            except (ConnectionError, http.client.HTTPException, socket.timeout):
                status = None
            if status == 200:
                break
            self.assertLess(time.monotonic(), deadline, "the address was not served again after a connection closed")
            time.sleep(0.2)

    def test_a_stream_whose_client_stops_reading_is_reset_within_the_write_timeout(self):
        ws_url = self.url.replace("http://", "ws://") + "/feeds/%s/stream" % FEED
        event_stream = self.open_event_stream(receive_buffer=4096)
        web_socket = websocket.create_connection(
            ws_url, timeout=WAIT_SECONDS, sockopt=((socket.SOL_SOCKET, socket.SO_RCVBUF, 4096),))
        self.addCleanup(web_socket.close)
        # Neither reads while about 10 MB of deltas go by.
        for round_number in range(40):
            self.control.request({"op": "reset", "feed": FEED,
                                  "items": [product("p%d" % i, name="Car %d %s" % (i, "x" * 120),
                                                    price=round_number, sort=i) for i in range(400)]})
        published = time.monotonic()
        deadline = published + WRITE_TIMEOUT + SLACK
        for name, sock in (("event stream", event_stream), ("WebSocket", web_socket.sock)):
            while tcp_state(sock) == TCP_ESTABLISHED:
                self.assertLess(time.monotonic(), deadline,
                                "the %s nobody reads is still open %.1f s after the deltas"
                                % (name, time.monotonic() - published))
                time.sleep(0.1)
            self.assertEqual(tcp_state(sock), TCP_CLOSE, "the %s was not reset" % name)
        self.assertTrue(self.log_lines("the client took no data in time"), "the reset was not logged")
        status, _ = self.get()
        self.assertEqual(status, 200)


class ServeLimitsTest(LimitChecks, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.daemon = RowcastDaemon()
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        self.control.request({"op": "upsert", "feed": FEED, "item": product("1", sort=1)})
        self.gateway = Gateway(
            self.daemon, log=self.log,
            extra_args=["--header-timeout", str(HEADER_TIMEOUT), "--idle-timeout", str(IDLE_TIMEOUT),
                        "--write-timeout", str(WRITE_TIMEOUT),
                        "--max-connections-per-peer", str(PEER_LIMIT), "--connection-buffer", "8"])
        self.addCleanup(self.gateway.stop)
        self.url = self.gateway.url

    def test_limits_outside_their_ranges_are_refused_at_start(self):
        for flag, value in (("--header-timeout", "0"), ("--idle-timeout", "-1"), ("--write-timeout", "nan"),
                            ("--max-connections-per-peer", "0")):
            result = subprocess.run(
                [os.path.join(BUILD_DIR, "rowcast"), "serve", "--http", "127.0.0.1:0", flag, value],
                stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=WAIT_SECONDS)
            self.assertEqual(result.returncode, 64, result.stderr)
            self.assertIn(flag, result.stderr)


class DaemonHTTPLimitsTest(LimitChecks, unittest.TestCase):
    def setUp(self):
        super().setUp()
        self.daemon = RowcastDaemon(
            http=True, log=self.log,
            extra_args=["--http-header-timeout-ms", str(int(HEADER_TIMEOUT * 1000)),
                        "--http-idle-timeout-ms", str(int(IDLE_TIMEOUT * 1000)),
                        "--http-write-timeout-ms", str(int(WRITE_TIMEOUT * 1000)),
                        "--http-max-connections-per-peer", str(PEER_LIMIT)])
        self.addCleanup(self.daemon.close)
        self.control = Control(self.daemon)
        self.addCleanup(self.control.close)
        self.control.request({"op": "upsert", "feed": FEED, "item": product("1", sort=1)})
        self.url = "http://" + self.daemon.endpoints["http"][len("tcp://"):]

    def test_limits_outside_their_ranges_are_refused_at_start(self):
        rowcastd = os.path.join(BUILD_DIR, "rowcastd")
        for flag, value in (("--http-header-timeout-ms", "5"), ("--http-idle-timeout-ms", "0"),
                            ("--http-write-timeout-ms", "0"), ("--http-max-connections-per-peer", "0")):
            result = subprocess.run([rowcastd, "--check-config", flag, value], stdin=subprocess.DEVNULL,
                                    capture_output=True, text=True, timeout=WAIT_SECONDS)
            self.assertEqual(result.returncode, 64, result.stderr)
            self.assertIn(flag, result.stderr)
        with tempfile.NamedTemporaryFile("w", suffix=".yaml") as config:
            config.write("http_max_connections_per_peer: 0\n")
            config.flush()
            result = subprocess.run([rowcastd, "--check-config", "--config", config.name], stdin=subprocess.DEVNULL,
                                    capture_output=True, text=True, timeout=WAIT_SECONDS)
        self.assertEqual(result.returncode, 78, result.stderr)
        self.assertIn("http_max_connections_per_peer", result.stderr)


if __name__ == "__main__":
    unittest.main(verbosity=2)
