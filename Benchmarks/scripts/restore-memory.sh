#!/bin/sh
# Resident memory of rowcastd running with N feeds of M items, then after a restart on the same
# state, and the database's size after the clean stop between them: `Benchmarks/scripts/restore-memory.sh [feeds] [items per feed] [build dir]`
# (default 100000 feeds of 1 item, .build/release).
# Loopback only; the state lives in a temporary directory that is removed at the end.
set -eu
FEEDS=${1:-100000}
ITEMS=${2:-1}
BUILD=${3:-.build/release}
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
PORTS="--ingest tcp://127.0.0.1:17801 --control tcp://127.0.0.1:17802 --publish tcp://127.0.0.1:17803 --http tcp://127.0.0.1:17804"

rss() { awk '/VmRSS/ { print int($2 / 1024) }' /proc/$1/status; }
start() {
    "$BUILD/rowcastd" $PORTS --plugins "$BUILD" --state-dir "$WORK/state" >"$WORK/out" 2>>"$WORK/log" &
    PID=$!
    STARTED=$(date +%s.%N)
    while ! grep -q "rowcastd ready" "$WORK/out"; do sleep 0.1; done
    READY=$(echo "$(date +%s.%N) - $STARTED" | bc)
}
rows() { "$BUILD/rowcast" status --control tcp://127.0.0.1:17802 --json --timeout 60 | python3 -c 'import json,sys; print(sum(f.get("rows", 0) for f in json.load(sys.stdin)["feeds"]))'; }

python3 - "$FEEDS" "$ITEMS" >"$WORK/requests.ndjson" <<'END'
import json, sys
feeds, items = int(sys.argv[1]), int(sys.argv[2])
for f in range(feeds):
    for i in range(items):
        print(json.dumps({"op": "upsert", "feed": f"f{f}", "item": {"id": str(i), "type": "product",
              "data": {"name": f"Model {i}", "operatedBy": "Tesla", "price": 39999, "image": f"https://img/{i}.png"}}}))
END

start
"$BUILD/rowcast" publish --ingest tcp://127.0.0.1:17801 --no-ack --file "$WORK/requests.ndjson" >/dev/null
while [ "$(rows)" -lt $((FEEDS * ITEMS)) ]; do sleep 1; done
RUNNING=$(rss $PID)
kill -TERM $PID; wait $PID || true
DB_KB=$(du -k "$WORK/state/rowcast.db" | cut -f1)
start
AFTER=$(rss $PID)
echo "feeds=$FEEDS items_per_feed=$ITEMS running_rss_mb=$RUNNING restarted_rss_mb=$AFTER ratio=$(echo "scale=2; $AFTER / $RUNNING" | bc) ready_after_restart_s=$READY db_after_clean_stop_kb=$DB_KB"
