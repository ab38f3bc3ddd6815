"""checks.py - the count the Python checkers share (check_hf.py, check_oracle.py,
check_views.py, check_export.py): check() counts a condition and says
"FAIL: <what>" when it does not hold; each checker's last line gives
checks.passed and checks.failed (finish() prints it and gives the exit status)."""
import sys

passed = failed = 0
to_stderr = False  # the failures on stderr rather than stdout (check_export.py)


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: %s" % (what,), file=sys.stderr if to_stderr else sys.stdout, flush=True)
    return ok


def finish(label):
    """Print "LABEL: N passed, N failed"; the exit status: 1 when a check failed."""
    print("%s: %d passed, %d failed" % (label, passed, failed))
    return 1 if failed else 0
