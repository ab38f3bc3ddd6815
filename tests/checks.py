"""checks.py - the count the Python checkers share (check_hf.py, check_oracle.py,
check_views.py, check_export.py): check() counts a condition and says
"FAIL: <what>" when it does not hold; each checker's last line gives
checks.passed and checks.failed."""
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


def summary(what):
    """The last line, "WHAT: N passed, N failed", and the exit status."""
    print("%s: %d passed, %d failed" % (what, passed, failed))
    return 1 if failed else 0
