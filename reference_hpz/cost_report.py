#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Compares the cost of zero3 with both hpZ fixes: runs hpz_train once per mode under a
launcher, reads each run's --cost-csv and writes a table (Markdown), the numbers behind it and a
PNG plot made by gnuplot.

    cost_report.py --launcher "torchrun --nnodes 2 --nproc-per-node 8 ..." --trainer hpz_train \\
                   --steps 20 --out report/

The launcher decides the machine: real GPUs, or any stand-in that runs the same binary."""
import argparse
import csv
import pathlib
import shlex
import statistics
import subprocess
import sys

MODES = ["zero3", "hpz-fix-hostsync", "hpz-fix-event"]


def run_mode(launcher, trainer, trainer_options, mode, steps, out_dir):
    cost_csv = out_dir / f"cost-{mode}.csv"
    command = shlex.split(launcher) + ["--", trainer, "--mode", mode, "--steps", str(steps),
                                       "--cost-csv", str(cost_csv)] + shlex.split(trainer_options)
    result = subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if result.returncode != 0:
        sys.exit(f"cost_report: {' '.join(command)} failed with status {result.returncode}:\n"
                 f"{result.stderr}")
    with open(cost_csv) as rows:
        return list(csv.DictReader(rows))


def summarize(rows):
    # Step 0 pays one-off costs (first touches of memory, first rendezvous): left out of the
    # timing, as benchmarks discard warm-up steps.
    timed = rows[1:] if len(rows) > 1 else rows
    return {
        "across": int(rows[-1]["bytes_across_nodes"]),
        "inside": int(rows[-1]["bytes_inside_nodes"]),
        "stall_ms": statistics.median(float(row["host_stall_ms"]) for row in timed),
        "step_ms": statistics.median(float(row["step_ms"]) for row in timed),
    }


def write_table(summaries, path):
    baseline = summaries["zero3"]["step_ms"]
    lines = ["| mode | bytes across nodes / step | bytes inside nodes / step | "
             "host stall ms / step | step ms | throughput vs zero3 |",
             "|---|---:|---:|---:|---:|---:|"]
    for mode in MODES:
        s = summaries[mode]
        lines.append(f"| {mode} | {s['across']} | {s['inside']} | {s['stall_ms']:.3f} | "
                     f"{s['step_ms']:.3f} | {baseline / s['step_ms']:.2f}x |")
    path.write_text("\n".join(lines) + "\n")
    return lines


def write_plot(summaries, out_dir):
    data = out_dir / "cost.dat"
    with open(data, "w") as table:
        table.write("# mode step_ms across_kib host_stall_ms\n")
        for mode in MODES:
            s = summaries[mode]
            label = mode.replace("hpz-fix-", "hpZ ")
            table.write(f"\"{label}\" {s['step_ms']} {s['across'] / 1024} {s['stall_ms']}\n")
    png = out_dir / "cost.png"
    script = f"""
set terminal pngcairo size 1200,420
set output '{png}'
set multiplot layout 1,3 title 'zero3 vs hpZ fixes (median step; bytes sent by all ranks)'
set style fill solid 0.7
set boxwidth 0.6
set yrange [0:*]
set xtics nomirror font ',9'
set ylabel 'step time (ms)'
plot '{data}' using 0:2:xtic(1) with boxes notitle
set ylabel 'host stall (ms per step)'
plot '{data}' using 0:4:xtic(1) with boxes notitle
set ylabel 'KiB across nodes per step'
plot '{data}' using 0:3:xtic(1) with boxes notitle
unset multiplot
"""
    result = subprocess.run(["gnuplot"], input=script, text=True, capture_output=True)
    if result.returncode != 0:
        sys.exit(f"cost_report: gnuplot failed:\n{result.stderr}")
    return png


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--launcher", required=True,
                        help="command that starts one hpz_train per rank (it is given -- trainer ...)")
    parser.add_argument("--trainer", default="hpz_train")
    parser.add_argument("--trainer-options", default="",
                        help="more options for every run, e.g. \"--qwz --qgz\"")
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--out", required=True, type=pathlib.Path)
    arguments = parser.parse_args()
    arguments.out.mkdir(parents=True, exist_ok=True)

    summaries = {mode: summarize(run_mode(arguments.launcher, arguments.trainer,
                                          arguments.trainer_options, mode, arguments.steps,
                                          arguments.out))
                 for mode in MODES}
    for line in write_table(summaries, arguments.out / "cost.md"):
        print(line)
    event_ratio = summaries["zero3"]["step_ms"] / summaries["hpz-fix-event"]["step_ms"]
    print(f"hpz-fix-event / zero3 throughput: {event_ratio:.2f}x")
    png = write_plot(summaries, arguments.out)
    print(f"plot: {png} ({png.stat().st_size} bytes)")


if __name__ == "__main__":
    main()
