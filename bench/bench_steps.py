"""What each kiln step of a bench run (bench/mlperf_tiny.sh, bench/rtl_model_n.sh) left in
the run's directory: NAME.step ("rc seconds max_rss_kb"), NAME.err and NAME.json."""
import json
import os


def load(path):
    """A JSON file, or {} when it is missing or not JSON."""
    try:
        return json.load(open(path))
    except Exception:
        return {}


def stepinfo(run_dir, name):
    """(exit code, seconds, max RSS KB, its --json output, its stderr lines), or None."""
    p = os.path.join(run_dir, name + ".step")
    if not os.path.exists(p):
        return None
    rc, secs, rss = open(p).read().split()
    err = open(os.path.join(run_dir, name + ".err")).read().strip().splitlines()
    return int(rc), float(secs), int(rss), load(os.path.join(run_dir, name + ".json")), err


def why(rc, err, limit, quote=False):
    """Why a step failed: its timeout, or kiln's last error line and exit code."""
    if rc == 124:
        return f"timed out after {limit} s"
    line = next((l for l in reversed(err) if l.startswith("kiln:")), err[-1] if err else "")
    return f"`{line}` (exit {rc})" if quote else f"{line} (exit {rc})"
