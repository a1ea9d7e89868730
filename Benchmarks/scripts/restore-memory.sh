#!/bin/sh
# Resident memory of rowcastd running with N one-item feeds, then after a restart on the same
# state: `Benchmarks/scripts/restore-memory.sh [feeds] [build dir]` (default 100000, .build/release).
# Loopback only; the state lives in a temporary directory that is removed at the end.
set -eu
FEEDS=${1:-100000}
BUILD=${2:-.build/release}
WORK=$(mktemp -d)
trap 'kill $PID 2>/dev/null || true; rm -rf "$WORK"' EXIT
PORTS="--ingest tcp://127.0.0.1:17801 --control tcp://127.0.0.1:17802 --publish tcp://127.0.0.1:17803"

rss() { awk '/VmRSS/ { print int($2 / 1024) }' /proc/$1/status; }
start() {
    "$BUILD/rowcastd" $PORTS --plugins "$BUILD" --state-dir "$WORK/state" >"$WORK/out" 2>>"$WORK/log" &
    PID=$!
    STARTED=$(date +%s.%N)
    while ! grep -q "rowcastd ready" "$WORK/out"; do sleep 0.1; done
    READY=$(echo "$(date +%s.%N) - $STARTED" | bc)
}
feeds() { "$BUILD/rowcast" status --control tcp://127.0.0.1:17802 --json --timeout 60 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["feeds"]))'; }

i=0
while [ $i -lt "$FEEDS" ]; do
    printf '{"op":"upsert","feed":"f%d","item":{"id":"1","type":"product","data":{"name":"Model %d","operatedBy":"Tesla","price":39999,"image":"https://img/%d.png"}}}\n' $i $i $i
    i=$((i + 1))
done >"$WORK/requests.ndjson"

start
"$BUILD/rowcast" publish --ingest tcp://127.0.0.1:17801 --no-ack --file "$WORK/requests.ndjson" >/dev/null 2>&1
while [ "$(feeds)" -lt "$FEEDS" ]; do sleep 1; done
RUNNING=$(rss $PID)
kill -TERM $PID; wait $PID || true
start
AFTER=$(rss $PID)
echo "feeds=$FEEDS running_rss_mb=$RUNNING restarted_rss_mb=$AFTER ratio=$(echo "scale=2; $AFTER / $RUNNING" | bc) ready_after_restart_s=$READY"
