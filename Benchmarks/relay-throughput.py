# Relay throughput (Benchmarks/README.md, "Other scripts"): python3 Benchmarks/relay-throughput.py .build/release/rowcast
# 256-byte messages from an XPUB "rowcastd" to a SUB, directly and through
# `rowcast relay`, sent in batches of 500 (under the default high-water mark of 1000, so none
# is dropped), and control round trips through the relay. Every wait is bounded.
import subprocess, sys, time, zmq
rowcast = sys.argv[1]
N, BATCH = 100_000, 500
ctx = zmq.Context()
up_pub = ctx.socket(zmq.XPUB); up_pub.setsockopt(zmq.XPUB_VERBOSE, 1); up_pub.bind("tcp://127.0.0.1:*")
up_ctl = ctx.socket(zmq.ROUTER); up_ctl.bind("tcp://127.0.0.1:*")
relay = subprocess.Popen([rowcast, "relay", "--upstream-publish", up_pub.last_endpoint.decode(), "--upstream-control", up_ctl.last_endpoint.decode(),
                          "--publish", "tcp://127.0.0.1:*", "--control", "tcp://127.0.0.1:*"], stdout=subprocess.PIPE, text=True)
try:
    line = relay.stdout.readline().split()
    pub_ep = line[3].split("=",1)[1]; ctl_ep = line[4].split("=",1)[1]
    def run(endpoint, label):
        sub = ctx.socket(zmq.SUB); sub.connect(endpoint); sub.setsockopt(zmq.SUBSCRIBE, b"rows.cars\0"); sub.setsockopt(zmq.RCVTIMEO, 5000)
        while True:
            if not up_pub.poll(20000): raise SystemExit("no subscription")
            if up_pub.recv().startswith(b"\x01"): break
        time.sleep(0.3)
        body = b"x" * 256
        start = time.perf_counter()
        for b in range(N // BATCH):
            for i in range(BATCH): up_pub.send_multipart([b"rows.cars\0", body])
            for i in range(BATCH): sub.recv_multipart()
        elapsed = time.perf_counter() - start
        print(f"{label}: {N} messages of 256 bytes in {elapsed:.2f} s = {N/elapsed/1000:.0f} k msg/s, none lost")
        sub.close(0)
    run(up_pub.last_endpoint.decode(), "direct XPUB->SUB")
    run(pub_ep, "through rowcast relay")
    dealer = ctx.socket(zmq.DEALER); dealer.setsockopt(zmq.RCVTIMEO, 5000); dealer.connect(ctl_ep)
    up_ctl.setsockopt(zmq.RCVTIMEO, 5000)
    M = 5_000
    start = time.perf_counter()
    for i in range(M):
        dealer.send_multipart([b"", b'{"op":"status","req":%d}' % i])
        frames = up_ctl.recv_multipart(); up_ctl.send_multipart(frames[:-1] + [b'{"ok":true,"req":%d}' % i])
        dealer.recv_multipart()
    elapsed = time.perf_counter() - start
    print(f"control round trips through the relay, one at a time: {M/elapsed/1000:.1f} k/s ({elapsed/M*1e6:.0f} us each)")
    start = time.perf_counter(); relay.terminate(); code = relay.wait(10)
    print(f"SIGTERM to exit: {time.perf_counter()-start:.2f} s, status {code}")
finally:
    if relay.poll() is None: relay.kill(); relay.wait()
