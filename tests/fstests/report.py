# SPDX-License-Identifier: GPL-2.0
"""The side-by-side table of one series' fstests runs (tests/fstests/run).

Reads fstests' xunit report of each flavour,
tests/vm/out/fstests-<series>-<flavour>/results/result.xml, the boots'
status lines (<gen>/status-<series>: "flavour PASS|FAIL seconds fstests")
and, for ours, the journals' knob summary (knobs.txt).  Prints one row per
test: result and seconds with the stock jbd2 and with ours.  Exits 1 when
ours did not pass a test that stock passed, or a boot failed."""

import argparse
import os
import sys
import xml.etree.ElementTree as ET

FLAVOURS = ("stock", "ours")


def read_results(path):
    """{test: (state, seconds, why)} from a result.xml; {} if none."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return {}, {}
    props = {p.get("name"): p.get("value")
             for p in root.iter("property")}
    res = {}
    for tc in root.iter("testcase"):
        skipped, failure = tc.find("skipped"), tc.find("failure")
        if skipped is not None:
            state, why = "not run", skipped.get("message", "")
        elif failure is not None:
            state, why = "FAIL", failure.get("message", "")
        else:
            state, why = "pass", ""
        res[tc.get("name")] = (state, tc.get("time", ""), why.strip())
    return res, props


def read_status(path):
    """{flavour: (PASS|FAIL, seconds, fstests version)} of the last boots."""
    st = {}
    try:
        with open(path) as f:
            for line in f:
                w = line.split()
                if len(w) >= 3:
                    st[w[0]] = (w[1], w[2], w[3] if len(w) > 3 else "?")
    except OSError:
        pass
    return st


def last_line(path):
    try:
        with open(path) as f:
            lines = [l.rstrip() for l in f if l.strip()]
        return lines[-1] if lines else ""
    except OSError:
        return ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--series", required=True)
    ap.add_argument("--out", required=True, help="tests/vm/out")
    ap.add_argument("--gen", required=True, help="tests/vm/out/.fstests")
    ap.add_argument("tests", nargs="+")
    a = ap.parse_args()

    res, props = {}, {}
    for f in FLAVOURS:
        d = os.path.join(a.out, "fstests-%s-%s" % (a.series, f))
        res[f], props[f] = read_results(os.path.join(d, "results", "result.xml"))
    status = read_status(os.path.join(a.gen, "status-" + a.series))
    kernel = props["stock"].get("KERNEL") or props["ours"].get("KERNEL") or "?"
    version = next((status[f][2] for f in FLAVOURS if f in status), "?")

    print()
    print("fstests %s on %s (%s, ext4): stock jbd2 vs ours with "
          "force_copy_default=1 reclaim_watermark_pct_default=50 "
          "lock_delay_max_ms_default=5000"
          % (version, a.series, kernel))
    for f in FLAVOURS:
        if f in status:
            st, secs, _ = status[f]
            why = ""
            if st != "PASS":
                why = ": " + last_line(os.path.join(
                    a.gen, "vm-%s-%s.log" % (a.series, f)))
            print("  %-5s boot %s in %s s%s" % (f, st, secs, why))
        else:
            print("  %-5s not run yet" % f)
    w = max(len(t) for t in a.tests) + 2
    print()
    print("%-*s %-9s %6s   %-9s %6s   %s" % (w, "test", "stock", "s", "ours", "s", "note"))
    regressions, notes = [], []
    count = {f: {} for f in FLAVOURS}
    for t in a.tests:
        cell, why = {}, {}
        for f in FLAVOURS:
            if not res[f]:
                cell[f] = ("-", "")
            else:
                state, secs, why[f] = res[f].get(t, ("no result", "", ""))
                cell[f] = (state, secs)
            count[f][cell[f][0]] = count[f].get(cell[f][0], 0) + 1
        s, o = cell["stock"][0], cell["ours"][0]
        note = ""
        if s == "pass" and o not in ("pass", "-"):
            note = "REGRESSION: ours " + o
            regressions.append(t)
        elif o == "pass" and s not in ("pass", "-"):
            note = "differs: only ours passes"
            notes.append(t)
        elif s == "not run" or o == "not run":
            note = (why.get("stock") or why.get("ours") or "")[:70]
        elif "FAIL" in (s, o):
            note = (why.get("ours") or why.get("stock") or "")[:70]
        print("%-*s %-9s %6s   %-9s %6s   %s" % (
            w, t, s, cell["stock"][1], o, cell["ours"][1], note))
    print()
    for f in FLAVOURS:
        print("  %-5s %s" % (f, ", ".join(
            "%d %s" % (n, k) for k, n in sorted(count[f].items()))))
    knobs = os.path.join(a.out, "fstests-%s-ours" % a.series, "knobs.txt")
    if os.path.exists(knobs):
        with open(knobs) as f:
            lines = f.read().splitlines()
        print("  ours: journals seen in configfs while fstests ran:")
        for line in lines:
            print("    " + line)
    rc = 0
    if regressions:
        print("ours fails what stock passes: " + " ".join(regressions))
        rc = 1
    elif res["stock"] and res["ours"]:
        print("ours passes every test stock passes" +
              (" (only ours passes: %s)" % " ".join(notes) if notes else ""))
    if any(status.get(f, ("PASS",))[0] != "PASS" for f in FLAVOURS):
        rc = 1
    return rc


if __name__ == "__main__":
    sys.exit(main())
