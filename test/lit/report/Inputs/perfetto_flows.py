"""Reads a Chrome trace-event JSON file as a trace viewer would and prints, one line each, its
tracks, the slices that carry findings, the instant events, and every flow with the slice each
end binds to (the slice on that track enclosing the flow's timestamp). Fails when a flow end
binds to no slice, or an instant lies outside every slice of its track.

usage: perfetto_flows.py TRACE.json
"""
import json
import sys


def main():
    with open(sys.argv[1]) as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    print("timestamps:", trace["otherData"]["timestamps"].split(":")[0])
    process = {e["pid"]: e["args"]["name"] for e in events
               if e["ph"] == "M" and e["name"] == "process_name"}
    track = {(e["pid"], e["tid"]): process[e["pid"]] + " " + e["args"]["name"] for e in events
             if e["ph"] == "M" and e["name"] == "thread_name"}
    for key in sorted(track):
        print("track:", track[key])
    slices = {}
    for e in events:
        if e["ph"] == "X":
            slices.setdefault((e["pid"], e["tid"]), []).append(e)

    def describe(e):
        where = e["args"].get("call site")
        return e["name"] + (" (" + where + ")" if where else "")

    def enclosing(e):
        found = [s for s in slices.get((e["pid"], e["tid"]), [])
                 if s["ts"] <= e["ts"] <= s["ts"] + s["dur"]]
        if len(found) != 1:
            sys.exit(f"{e['ph']} event {e} binds to {len(found)} slices")
        return found[0]

    for s in (s for e in slices.values() for s in e):
        if "finding" in s["args"]:
            print("finding slice:", track[(s["pid"], s["tid"])], describe(s), s["args"]["finding"],
                  s.get("cname", ""))
    for e in events:
        if e["ph"] == "i":
            print("instant:", track[(e["pid"], e["tid"])], describe(enclosing(e)), "|", e["name"])
    starts = {e["id"]: e for e in events if e["ph"] == "s"}
    for e in events:
        if e["ph"] != "f":
            continue
        start = starts[e["id"]]
        if e.get("bp") != "e" or start["name"] != e["name"]:
            sys.exit(f"flow {e['id']} is not a bound s/f pair")
        print("flow " + e["name"] + ":", track[(start["pid"], start["tid"])],
              describe(enclosing(start)), "->", track[(e["pid"], e["tid"])],
              describe(enclosing(e)))


if __name__ == "__main__":
    main()
