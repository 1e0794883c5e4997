"""A fault sweep: bad input of each kind given to the binary; each case is refused with one clear line (or
handled), never a crash, a hang, a silent acceptance or lost data. Not part of `cargo test` (each defect it found
has a test of its own); rerun it on a release binary after changes to input handling:

    python3 tests/fault_sweep.py target/release/othello-zero sweep.md

It writes a table of every case and its verdict, and prints those not ok."""
import os, subprocess, sys, tempfile, time, shutil, signal

BIN, REPORT = os.path.abspath(sys.argv[1]), sys.argv[2]
W = tempfile.mkdtemp(prefix="sweep-")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
START = "---------------------------OX------XO--------------------------- X"
results = []


def write(name, data, mode="w"):
    path = os.path.join(W, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, mode) as f:
        f.write(data)
    return path


def case(category, name, args, expect="refused", stdin=None, timeout=30, cwd=None):
    """expect: refused (nonzero exit, a clear message), handled (exit 0, no panic)."""
    t = time.time()
    try:
        p = subprocess.run([BIN] + args, input=stdin, capture_output=True, text=True, timeout=timeout,
                           cwd=cwd or W, env={**os.environ, "RUST_BACKTRACE": "1"}, errors="replace")
        out, err, rc = p.stdout, p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        results.append((category, name, "HANG", f"no answer in {timeout} s"))
        return
    lines = [l for l in err.strip().splitlines() if l.strip()]
    if "panicked" in err or rc < 0 or rc == 101:
        verdict = "CRASH"
    elif expect == "refused" and rc == 0:
        verdict = "SILENT"
    elif expect == "refused" and len(lines) > 3:
        verdict = "LONG MESSAGE"
    elif expect == "handled" and rc != 0:
        verdict = "REFUSED (expected handled)"
    else:
        verdict = "ok"
    shown = (lines[0] if expect == "refused" and lines else (out.strip().splitlines() or [""])[-1])[:160]
    results.append((category, name, verdict, shown))


# Transcripts and boards
case("transcripts", "off-board square", ["show", "f5d6c9"])
case("transcripts", "illegal move", ["show", "f5f5"])
case("transcripts", "board of 63 cells", ["show", START[:20] + START[21:]])
case("transcripts", "bad side", ["show", START[:-1] + "Q"])
case("transcripts", "huge argument", ["show", "f5" * 50000])
bad_lines = write("games.txt", "f5d6c3d3c4\nf5d6c3d3z9\n")
case("transcripts", "replay: bad second line", ["replay", "--file", bad_lines])
case("transcripts", "replay: missing file", ["replay", "--file", os.path.join(W, "none.txt")])
binary = write("binary.txt", b"\xff\xfe\x00garbage\n", "wb")
case("transcripts", "replay: not UTF-8", ["replay", "--file", binary])
case("transcripts", "replay: empty file", ["replay", "--file", write("empty.txt", "")], expect="handled")
# GGF
ggf_ok = "(;GM[Othello]PC[x]PB[a]PW[b]TY[8]BO[8 " + "-" * 27 + "O* ------ *O" + "-" * 27 + " *]B[f5]W[d6];)"
case("ggf", "truncated record", ["replay", "--ggf", "--file", write("t.ggf", ggf_ok[:40])])
case("ggf", "contradictory TY", ["replay", "--ggf", "--file", write("ty.ggf", ggf_ok.replace("TY[8]", "TY[8]TY[6]"))])
case("ggf", "TY[8zz]", ["replay", "--ggf", "--file", write("tyz.ggf", ggf_ok.replace("TY[8]", "TY[8zz]"))])
case("ggf", "illegal move", ["replay", "--ggf", "--file", write("ill.ggf", ggf_ok.replace("W[d6]", "W[a1]"))])
# WTHOR
wtb = open(os.path.join(REPO, "data/wthor/WTH_1980.wtb"), "rb").read()
case("wthor", "truncated game file", ["agreement", "--model", os.path.join(REPO, "networks/othello-8x8/model.json"),
                                      "--wthor", write("wth/WTH_2000.wtb", wtb[:1000], "wb")])
case("wthor", "header says more games", ["import-wthor", "--run", os.path.join(W, "runw"),
                                         write("wth2/WTH_2001.wtb", wtb[:16] + wtb[16:16 + 68 * 3], "wb")])
# solve, perft, bench
case("solve", "garbage board", ["solve", "garbage"])
case("solve", "time 1e19", ["solve", "--time", "1e19", START])
case("solve", "time -1", ["solve", "--time", "-1", START])
case("solve", "table 0 MB", ["solve", "--table-mb", "0", START])
case("solve", "missing file", ["solve", "--file", os.path.join(W, "none.txt")])
case("solve", "node limit on the start", ["solve", "--nodes", "1000", START])
case("flags", "perft depth 100", ["perft", "100"])
case("flags", "bench perft depth 100", ["bench", "perft", "--depth", "100"])
case("flags", "bench pattern depth 100", ["bench", "pattern", "--depth", "100"])
case("flags", "bench random games 0", ["bench", "random", "--games", "0"])
case("flags", "bench net filters 0", ["bench", "net", "--filters", "0"])
case("flags", "bench train filters 0", ["bench", "train", "--filters", "0"])
case("flags", "openings seconds 1e19", ["openings", "--seconds", "1e19", "--out", os.path.join(W, "o.txt")])
case("flags", "arena games 0", ["arena", "--out", os.path.join(W, "a0"), "--games", "0", "--agents", "random", "greedy"])
case("flags", "arena threads 0", ["arena", "--out", os.path.join(W, "a1"), "--threads", "0", "--agents", "random", "greedy"])
case("flags", "opening plies 100", ["arena", "--out", os.path.join(W, "a2"), "--openings", "random",
                                    "--opening-plies", "100", "--agents", "random", "greedy"])
case("flags", "missing --rules value", ["show", "--rules"])
case("flags", "unknown rules", ["show", "--rules", "othello,9x9", "f5"])
case("flags", "out under a file", ["arena", "--out", "/etc/passwd/x", "--agents", "random", "greedy"])
# agent specs
for spec in ["minimax", "net:model=x,sims=0", "net:model=/nonexistent,sims=4", "grhino:level=9", "pattern:depth=99",
             "net:model=x,gumbel=1", "engine:cmd=\"a b", "positional:depth=3+endgame99", "net:model=x,time=1e9"]:
    case("agent specs", spec, ["arena", "--out", os.path.join(W, "spec"), "--agents", spec, "random"])
case("agent specs", "pattern under 6x6", ["arena", "--out", os.path.join(W, "p6"), "--rules", "othello,6x6",
                                           "--agents", "pattern", "random"])
case("agent specs", "grhino under 6x6", ["arena", "--out", os.path.join(W, "g6"), "--rules", "othello,6x6",
                                          "--agents", "grhino:level=1", "random"])
# misbehaving engines: each game finishes, the engine forfeits, nothing hangs
engines = {
    "garbage": "#!/bin/sh\nwhile read l; do echo '= zz'; echo; done\n",
    "exits": "#!/bin/sh\nexit 3\n",
    "silent": "#!/bin/sh\nsleep 1000\n",
    "floods": "#!/bin/sh\nyes flood >&2 &\nwhile read l; do echo '= pass'; echo; done\n",
    "no blank line": "#!/bin/sh\nwhile read l; do echo '='; done\n",
}
for name, script in engines.items():
    path = write("eng/" + name.replace(" ", "_") + ".sh", script)
    os.chmod(path, 0o755)
    out = os.path.join(W, "eng-" + name.replace(" ", "_"))
    case("engines", name, ["arena", "--out", out, "--games", "2", "--agents",
                           f"engine:cmd=\"{path}\",protocol=gtp,time=1,startup=1", "random"], expect="handled",
         timeout=120)
    log = os.path.join(out, "engines.log")
    if os.path.exists(log):
        results.append(("engines", name + ": engines.log size", "ok" if os.path.getsize(log) < 2_000_000 else "BIG",
                        f"{os.path.getsize(log)} bytes"))
# protocol sessions
case("sessions", "gtp: bad lines", ["gtp", "--agent", "random"],
     stdin="boardsize 99\nplay b z9\ngenmove\nfoo\n\x00\nplay q d3\nquit\n", expect="handled")
case("sessions", "nboard: bad lines", ["nboard", "--agent", "random"],
     stdin="nboard 2\nset depth 999\nset game (;GM[Othello]BO[8 bad]);\ngo\nhint x\nfoo\nquit\n", expect="handled")
case("sessions", "play: bad moves then end of input", ["play", "--agent", "random"], stdin="z9\nf5f5\n\nxx\n",
     expect="handled")
# run directories
run = os.path.join(W, "run-bad-config")
write("run-bad-config/config.toml", "[selfplay]\nsimulations = 5\n")
case("run dirs", "old spelling in config", ["selfplay", "--run", run, "--games", "1"])
write("run-bad-value/config.toml", "rules = \"othello,6x6\"\n[selfplay]\nsims = -5\n")
case("run dirs", "bad value in config", ["selfplay", "--run", os.path.join(W, "run-bad-value"), "--games", "1"])
write("run-not-toml/config.toml", "[[[[\n")
case("run dirs", "config not TOML", ["train", "--run", os.path.join(W, "run-not-toml")])
os.makedirs(os.path.join(W, "run-no-config/replay"), exist_ok=True)
write("run-no-config/replay/shard-000000.npz", "junk")
case("run dirs", "shards without config", ["selfplay", "--run", os.path.join(W, "run-no-config"), "--games", "1"])
write("run-corrupt-ckpt/config.toml", open(os.path.join(REPO, "configs/ci.toml")).read())
write("run-corrupt-ckpt/models/model-000000010.json", "{not json")
write("run-corrupt-ckpt/models/model-000000010.bpk", "x")
case("run dirs", "corrupt checkpoint", ["arena", "--out", os.path.join(W, "ac"), "--agents",
                                        "net:model=" + os.path.join(W, "run-corrupt-ckpt") + ",sims=2", "random"])

# kill -9: an arena killed mid-way and run again ends with every game once
killed = os.path.join(W, "killed")
arena = [BIN, "arena", "--out", killed, "--games", "20000", "--agents", "random", "greedy"]
proc = subprocess.Popen(arena, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(0.5)
proc.send_signal(signal.SIGKILL)
proc.wait()
subprocess.run(arena, capture_output=True, timeout=300)
rows = open(os.path.join(killed, "results.csv")).read().splitlines()[1:]
games = {r.split(",")[0] for r in rows}
verdict = "ok" if len(rows) == 20000 and len(games) == 20000 else "LOST OR DUPLICATED"
results.append(("kill -9", "arena killed and run again", verdict, f"{len(rows)} rows, {len(games)} distinct games"))

with open(REPORT, "w") as f:
    f.write("| category | case | verdict | first line |\n|---|---|---|---|\n")
    for c, n, v, s in results:
        f.write(f"| {c} | {n} | {v} | {s.replace('|', '/')} |\n")
bad = [r for r in results if r[2] != "ok"]
print(f"{len(results)} cases, {len(bad)} not ok")
for r in bad:
    print(r)
shutil.rmtree(W, ignore_errors=True)
