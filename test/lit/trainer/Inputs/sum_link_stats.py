#!/usr/bin/env python3
"""sum_link_stats.py FILE: adds up the per-process JSON lines of STREAMRACE_EMU_NCCL_STATS."""
import json
import sys

across = inside = 0
with open(sys.argv[1]) as stats:
    for line in stats:
        record = json.loads(line)
        across += record["inter_node_bytes"]
        inside += record["intra_node_bytes"]
print(f"emulator counted: across nodes {across}, inside nodes {inside}")
