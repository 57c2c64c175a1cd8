#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
"""Writes summary.md for scripts/demo.sh: the hpZ story told with the numbers of the run whose
outputs are in --out (analyzer diagnostics, traced runs, losses, counters, cost table)."""
import argparse
import csv
import os
import pathlib
import re
import sys

MODES = ["zero3", "hpz-fix-hostsync", "hpz-fix-event", "hpz-buggy", "hpz-buggy-late-copy"]
WHAT = {
    "zero3": "ZeRO-3 baseline: backward gathers over all ranks",
    "hpz-fix-hostsync": "hpZ, host synchronizes stream C after each copy (DeepSpeed PR #5216)",
    "hpz-fix-event": "hpZ, event recorded on C after the copy, A waits on it",
    "hpz-buggy": "hpZ as in DeepSpeed <= v0.13.4, no ordering, normal timing",
    "hpz-buggy-late-copy": "the same, copy on C made late and fresh shards poisoned with NaN",
}


def read(path):
    return path.read_text(errors="replace") if path.exists() else ""


def relative(text, root):
    return text.replace(str(root) + "/", "")


def analyzer_section(out, root, modes):
    section = ["## 1. Before it runs: `streamrace-check`", "",
               "`streamrace-check reference_hpz/trainer.cpp`, once per mode (`-DHPZ_ONLY_MODE=...` "
               "keeps one mode's step, as a single-mode build does):", "",
               "| mode | exit | warnings | diagnostics |", "|---|---:|---:|---|"]
    for mode in modes:
        text = read(out / f"analyzer-{mode}.txt")
        section.append(f"| {mode} | {read(out / f'analyzer-exit-{mode}.txt').strip()} | "
                       f"{text.count(': warning: ')} | [analyzer-{mode}.txt](analyzer-{mode}.txt) |")
    lines = relative(read(out / "analyzer-hpz-buggy.txt"), root).splitlines()
    warnings = [i for i, line in enumerate(lines) if ": warning: " in line]
    hpz = [i for i in warnings if "secondary" in lines[i]]
    if hpz:
        end = next((i for i in warnings if i > hpz[0]), len(lines))
        section += ["", "The hpz-buggy warning, with its notes and the fix-it they describe "
                    "(`--fix` applies it; SARIF for code scanning: [analyzer.sarif](analyzer.sarif)):",
                    "", "```text"] + lines[hpz[0]:end] + ["```"]
    else:
        section += ["", "No warning on the secondary shard in hpz-buggy: see analyzer-hpz-buggy.txt."]
    others = [lines[i].strip() for i in warnings if not hpz or i != hpz[0]]
    if others:
        section += ["", "Also reported in hpz-buggy:", ""] + [f"- `{line}`" for line in others]
    return section


def headline(report):
    warning = next((line for line in report.splitlines() if line.startswith("WARNING: ")), None)
    return warning[len("WARNING: "):] if warning else "no finding"


def mismatch_counters(run_output):
    """Every 'something mismatches: N' counter the ranks print, summed over ranks."""
    totals = {}
    for label, count in re.findall(r"([A-Za-z][A-Za-z -]*mismatches): (\d+)", run_output):
        label = label.strip()
        totals[label] = totals.get(label, 0) + int(count)
    return totals


def tracer_section(out, root, geometry, steps):
    section = ["## 2. While it runs: `streamrace run`", "",
               f"`hpz_train` ({geometry}, {steps} steps) under the tracer, one run per mode. "
               "The race is reported in every buggy run, whether or not its loss shows damage; "
               "zero3 and both fixes are silent.", "",
               "| run | what it is | exit | race report | weight mismatches (summed over ranks) |",
               "|---|---|---:|---|---|"]
    counters = {}
    for mode in MODES:
        report = read(out / f"report-{mode}.txt")
        summary = next((line for line in report.splitlines() if line.startswith("SUMMARY:")),
                       "no SUMMARY line")
        counters[mode] = mismatch_counters(read(out / f"run-{mode}.out"))
        counted = ", ".join(f"{label}: {n}" for label, n in counters[mode].items()) or "-"
        section.append(f"| [{mode}](report-{mode}.txt) | {WHAT[mode]} | "
                       f"{read(out / f'exit-{mode}.txt').strip()} | {headline(report)}; "
                       f"`{summary}` | {counted} |")
    buggy = relative(read(out / "report-hpz-buggy.txt"), root).splitlines()
    fix = next((line.strip() for line in buggy if line.strip().startswith("To fix:")), None)
    if fix:
        section += ["", f"The fix the report proposes: *{fix[len('To fix: '):]}*"]
    first = next((i for i, line in enumerate(buggy) if line.startswith("WARNING: ")), None)
    if first is not None:
        end = next((i for i in range(first + 1, len(buggy)) if buggy[i].startswith("====")),
                   len(buggy))
        section += ["", "The first finding of the undelayed buggy run:", "", "```text"]
        section += buggy[first:end] + ["```"]
    return section, counters


def loss_section(out, steps, counters):
    loss = {}
    for mode in MODES:
        path = out / f"loss-{mode}.csv"
        rows = list(csv.reader(open(path))) if path.exists() else []
        loss[mode] = {row[0]: row[1] for row in rows if row and row[0].isdigit()}
    section = ["## 3. The damage", "", "Loss of rank 0 per step ([loss.png](loss.png)):", "",
               "| step | " + " | ".join(MODES) + " |", "|---:|" + "---:|" * len(MODES)]
    for step in range(steps):
        section.append(f"| {step} | " +
                       " | ".join(loss[m].get(str(step), "-") for m in MODES) + " |")
    same = all(loss[m] == loss["zero3"] and loss[m] for m in ["hpz-fix-hostsync", "hpz-fix-event"])
    nan_steps = [s for s, value in loss["hpz-buggy-late-copy"].items() if "nan" in value.lower()]
    section.append("")
    section.append(f"- Both fixes equal zero3 bit for bit: **{'yes' if same else 'no'}**.")
    if nan_steps:
        section.append(f"- With the copy late, hpz-buggy's loss is NaN from step "
                       f"{min(nan_steps, key=int)} on.")
    elif loss["hpz-buggy-late-copy"] != loss["zero3"]:
        section.append("- With the copy late, hpz-buggy drifts away from zero3.")
    undelayed = "equals" if loss["hpz-buggy"] == loss["zero3"] else "differs from"
    section.append(f"- Undelayed, hpz-buggy {undelayed} zero3 in this run: whether the race bites "
                   "depends on timing, which is why the tracer, which needs no luck, matters.")
    late = counters.get("hpz-buggy-late-copy", {})
    if late:
        section.append("- Weight consistency counters of the late-copy run: " +
                       ", ".join(f"{label} {n}" for label, n in late.items()) +
                       " (zero in zero3 and both fixes: see the table above).")
    section += ["", "![loss per step](loss.png)"]
    return section


def cost_rows(out):
    """The cost table's rows by mode: mode, bytes, ..., throughput against zero3 (column 5)."""
    table = read(out / "cost" / "cost.md").strip().splitlines()
    return {line.split("|")[1].strip(): [cell.strip() for cell in line.split("|")[1:-1]]
            for line in table[2:]}


def cost_section(out, cost_steps, cost_setup):
    table = read(out / "cost" / "cost.md").strip().splitlines()
    section = ["## 4. The cost of the two fixes", ""]
    if not table:
        return section + ["(the cost report did not run: see the demo's output)"]
    emulated = ("; the emulator's link model runs 100x slower than nominal so that "
                "communication, not its CPU kernels, sets the step time, as on GPUs"
                if "emulated" in cost_setup else "")
    section += [f"`reference_hpz/cost_report.py` ran zero3 and both fixes for {cost_steps} steps "
                f"at {cost_setup} (NVLink-like links inside nodes{emulated}). Median step, bytes "
                "sent by all ranks:", ""] + table
    rows = cost_rows(out)
    if "zero3" in rows and "hpz-fix-event" in rows:
        zero3, event = rows["zero3"], rows["hpz-fix-event"]
        hostsync = rows.get("hpz-fix-hostsync")
        saved = 1 - int(event[1]) / int(zero3[1])
        section += ["", f"hpZ cuts the bytes crossing nodes per step from {zero3[1]} to {event[1]} "
                    f"({saved:.0%} less) and runs at {event[5]} zero3's throughput with the event "
                    "fix" + (f", {hostsync[5]} with the host-sync fix, which also stalls the host "
                             f"{hostsync[3]} ms per step" if hostsync else "") + "."]
    section += ["", "![throughput](throughput.png)", "", "![cost](cost/cost.png)"]
    return section


def print_fix_advice(out, root):
    for line in fix_advice(out, root):
        print("  " + line[2:].replace("`", "").replace("**", ""))


def advised_sites(out, mode):
    """{"api at file:line": (verdict, the lines under it)} of `streamrace report --advise=sync`
    on the run's traces."""
    sites, current = {}, None
    for line in read(out / f"sync-advice-{mode}.txt").splitlines():
        site = re.match(r"  ([a-z-]+): (.*) \((\d+ executions?"
                        r"(, held the host [0-9.]+ ms(, [0-9.]+ ms a step)?)?)\)$", line)
        if site:
            current = site.group(2)
            sites[current] = (site.group(1), [site.group(3)])
        elif current and line.startswith("    "):
            sites[current][1].append(line.strip())
    return sites


def fix_advice(out, root):
    """What the advisor says of the synchronizations by which the two fixes differ, with each
    fix's throughput against zero3 where the cost report ran."""
    hostsync, event = advised_sites(out, "hpz-fix-hostsync"), advised_sites(out, "hpz-fix-event")
    rows = cost_rows(out)
    lines = []
    for mode, mine, theirs in [("hpz-fix-hostsync", hostsync, event),
                               ("hpz-fix-event", event, hostsync)]:
        for site, (verdict, details) in mine.items():
            if site not in theirs:
                speed = f" (runs at {rows[mode][5]} zero3's throughput)" if mode in rows else ""
                lines.append(f"- {mode}{speed}: `{relative(site, root)}` is **{verdict}**: " +
                             "; ".join(relative(d, root) for d in details))
    return lines


def advice_counts(out):
    """Per mode, the advice's count of sites by verdict, as its first line says it."""
    counts = {}
    for mode in ["zero3", "hpz-fix-hostsync", "hpz-fix-event"]:
        line = re.search(r"synchronization: (\d+ sites?), .*: (.*)$",
                         read(out / f"sync-advice-{mode}.txt"), re.M)
        if line:
            counts[mode] = f"{line.group(1)}: {line.group(2)}"
    return counts


def advice_section(out, root):
    section = ["### Which synchronization each fix needs", ""]
    lines = fix_advice(out, root)
    if not lines:
        return section + ["(the advice did not run: see the demo's output)"]
    lines += [""] + [f"All of {mode}'s synchronizations ([sync-advice-{mode}.txt]"
                     f"(sync-advice-{mode}.txt)): {text}."
                     for mode, text in advice_counts(out).items()]
    page = os.path.relpath(root / "docs" / "sync-advice.md", out.resolve())
    return section + ["`streamrace report --advise=sync` replays each run's trace without each of "
                      "its synchronizations, one call site at a time "
                      f"([docs/sync-advice.md]({page})). The fixes differ in one each:",
                      ""] + lines


def pr5216_advice(out, root):
    """What the advisor says of PR #5216's synchronization in DeepSpeed as published: the site
    at the last line of the fix (examples/deepspeed_hpz/without_pr5216.py names its lines), as
    "`api at file:line` is **verdict**: why", or None when the advice did not run or missed it."""
    sys.path.insert(0, str(root / "examples" / "deepspeed_hpz"))
    from without_pr5216 import PR5216_SYNCHRONIZATION
    fix = PR5216_SYNCHRONIZATION.splitlines()
    for site, (verdict, details) in advised_sites(out, "deepspeed-as-published").items():
        where = re.search(r" at (.*partition_parameters\.py):(\d+)$", site)
        if not where:
            continue
        lines = read(pathlib.Path(where.group(1))).splitlines()
        end = int(where.group(2))
        if lines[max(end - len(fix), 0):end] == fix:
            return f"`{relative(site, root)}` is **{verdict}**: " + "; ".join(
                relative(d, root) for d in details)
    return None


def deepspeed_section(out, root):
    section = ["## 6. In DeepSpeed itself", ""]
    buggy = read(out / "report-deepspeed-without-pr5216.txt")
    published = read(out / "report-deepspeed-as-published.txt")
    if not buggy and not published:
        return section + ["Skipped (`STREAMRACE_DEMO_DEEPSPEED=off`)."]
    example = os.path.relpath(root / "examples" / "deepspeed_hpz", out.resolve())
    summary = lambda report: (re.findall(r"SUMMARY: streamrace: .*", report) or ["no report"])[-1]
    section += ["DeepSpeed ZeRO-3 with hpZ on a small model "
                f"([examples/deepspeed_hpz]({example})), under `streamrace run`:",
                "", f"- without PR #5216's synchronization: `{summary(buggy)}`",
                f"- as published: `{summary(published)}`", ""]
    race = re.search(r"WARNING: streamrace: race.*?(?=\n\n|\Z)", buggy, re.S)
    if race:
        section += ["```", relative(race.group(0), root)[:3000], "```"]
    advice = pr5216_advice(out, root)
    if advice:
        section += ["", "What `streamrace report --advise=sync` says of PR #5216's synchronization "
                    "in the published run ([sync-advice-deepspeed-as-published.txt]"
                    "(sync-advice-deepspeed-as-published.txt)): " + advice]
    return section


def files_section(out):
    section = ["## Files", ""]
    for path in sorted(p for p in out.rglob("*") if p.is_file()):
        name = path.relative_to(out).as_posix()
        section.append(f"- [{name}]({name})")
    return section


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, type=pathlib.Path)
    parser.add_argument("--root", required=True, type=pathlib.Path)
    parser.add_argument("--fix-advice", action="store_true",
                        help="print what the advisor says of the two fixes' differing "
                             "synchronizations, and write nothing")
    parser.add_argument("--pr5216-advice", action="store_true",
                        help="print what the advisor says of PR #5216's synchronization in "
                             "DeepSpeed as published, and write nothing")
    parser.add_argument("--steps", type=int)
    parser.add_argument("--cost-steps", type=int)
    parser.add_argument("--cost-setup")
    parser.add_argument("--geometry")
    parser.add_argument("--analyzer-modes", nargs="+")
    arguments = parser.parse_args()
    out = arguments.out
    if arguments.fix_advice:
        return print_fix_advice(out, arguments.root)
    if arguments.pr5216_advice:
        advice = pr5216_advice(out, arguments.root)
        print("  " + (advice or "(no verdict on PR #5216's synchronization: see "
                      "sync-advice-deepspeed-as-published.txt)").replace("`", "").replace("**", ""))
        return None
    for name in ["steps", "cost_steps", "cost_setup", "geometry", "analyzer_modes"]:
        if getattr(arguments, name) is None:
            parser.error("--%s is required" % name.replace("_", "-"))
    platform = read(out / "platform.txt").strip()
    story = os.path.relpath(arguments.root / "docs" / "hpz-story.md", out.resolve())
    lines = ["# streamrace demo: the ZeRO++ hpZ race, found twice, its damage and its fixes", "",
             "DeepSpeed's hpZ (ZeRO++) copied each rank's slice of a layer's weights into a "
             "secondary buffer on the compute stream C, then all-gathered that buffer inside the "
             "node on stream A, with nothing ordering the copy before the gather (arXiv "
             "2407.01614, DeepSpeed issue #5059, fixed by PR #5216). `hpz_train` reproduces the "
             "step; this page gives the numbers of this run. The whole story: "
             f"[docs/hpz-story.md]({story}).", "",
             f"Ran on: {platform}."]
    lines += [""] + analyzer_section(out, arguments.root, arguments.analyzer_modes)
    tracer, counters = tracer_section(out, arguments.root, arguments.geometry, arguments.steps)
    lines += [""] + tracer
    lines += [""] + loss_section(out, arguments.steps, counters)
    lines += [""] + cost_section(out, arguments.cost_steps, arguments.cost_setup)
    lines += [""] + advice_section(out, arguments.root)
    perfetto = out / "trace.perfetto.json"
    lines += ["", "## 5. The timeline", ""]
    if perfetto.exists():
        lines.append("[trace.perfetto.json](trace.perfetto.json): the undelayed buggy run's "
                     "streams per rank, happens-before edges as flows and the finding "
                     "highlighted. Open it at https://ui.perfetto.dev (or chrome://tracing).")
    else:
        lines.append("No Perfetto trace: this build's `streamrace` has no `export` command, so "
                     "the demo skipped it.")
    lines += [""] + deepspeed_section(out, arguments.root)
    lines += [""] + files_section(out) + ["- [summary.md](summary.md)"]
    (out / "summary.md").write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
