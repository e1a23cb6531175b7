# testlib.sh — shared by the script tests (sourced, not run by CTest):
# arguments, a fresh work directory, and the pass/fail tally that ends in
# the "N passed, N failed" line CI reads.
set -u
planeval=$1 src=$2 work=$3
rm -rf "$work" && mkdir -p "$work"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
no() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else no "$1"; fi; }
# the closing line and the exit status
finish() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
