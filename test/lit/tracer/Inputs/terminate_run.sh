#!/bin/sh
# terminate_run.sh SIGNAL TRACE_DIR PROGRAM SCENARIO: starts `streamrace run` on PROGRAM, which
# runs SCENARIO and then sleeps; once the scenario is done, sends SIGNAL to `streamrace run`
# alone (as a scheduler or `timeout` would) and prints the status it exited with.
signal=$1 traces=$2 program=$3 scenario=$4
ready=$traces.ready
rm -f "$ready"
# The signal's default action is restored first: a suite run under nohup ignores SIGHUP, the
# program would inherit that, and no shell can undo it.
env --default-signal="$signal" \
  streamrace run --output="$traces" -- sh -c "$program $scenario && touch $ready && exec sleep 60" &
run=$!
tries=0
while [ ! -e "$ready" ] && [ $tries -lt 600 ]; do
  sleep 0.1
  tries=$((tries + 1))
done
kill -"$signal" $run
wait $run
echo "streamrace run exited with $?"
