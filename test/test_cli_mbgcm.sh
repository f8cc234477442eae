#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test/test_cli_mbgcm.sh MBGCM_BINARY [slow] — the `mbgcm` command-line tool through its real
# binary: --help, --version; usage errors (exit 2), with a hint for key files that hold a
# newline or hex text; I/O errors (exit 3); checks made before any output (a directory as
# INPUT writes nothing, -o naming a directory or a non-file fails before reading the input,
# seal refuses a terminal unless -o - is given); round trips at the lengths that matter through
# files, stdin/stdout and "-", with every key source, a context, 1 and 2 threads; sealed sizes;
# every failure class (exit 1, one line on stderr naming it: wrong key or context, modified,
# truncated, trailing data); -o never leaves a temporary file, never creates OUT on failure and
# never clobbers an existing OUT (also when killed mid-way); to stdout only authenticated whole
# chunks come out; a reader that closes the pipe early ends the tool quietly by SIGPIPE; the
# progress bar appears on a terminal (through script(1)) and never otherwise.
# "slow" (the portable build: about 15 MB/s) keeps every input small and skips the big cases.
set -u
BIN="${1:?usage: test_cli_mbgcm.sh MBGCM_BINARY [slow]}"
SLOW="${2:-}"
W=$(mktemp -d "${TMPDIR:-/tmp}/mbgcm-cli-test.XXXXXX")
trap 'rm -rf "$W"' EXIT
cd "$W" || exit 1
unset MBGCM_ARCH  # auto: an inherited MBGCM_ARCH would change what runs

checks=0
fail() { echo "test_cli_mbgcm: FAIL: $*" >&2; [ -s err ] && sed 's/^/  stderr: /' err >&2; exit 1; }
ok() { checks=$((checks + 1)); }
# run RC CMD...: run with stdout to ./out.bin (unless redirected by the caller), stderr to ./err
expect() {
  local want="$1"; shift
  "$@" >out.bin 2>err
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "exit $rc, expected $want: $*"
  ok
}
expect_err() { # PATTERN: stderr is exactly one line and matches
  [ "$(wc -l <err)" -eq 1 ] || fail "stderr should be one line, got: $(cat err)"
  grep -qiE "$1" err || fail "stderr does not match /$1/: $(cat err)"
  ok
}
expect_first() { # PATTERN: the first stderr line (usage errors add the usage text) matches
  head -n 1 err | grep -qiE "$1" || fail "stderr does not start with /$1/: $(cat err)"
  ok
}
mkdata() { head -c "$2" /dev/urandom >"$1"; }
sealed_size() { echo $((56 + $1 + 16 * ($1 / 16384 + 1))); }
no_tmp() { # DIR: no temporary files left
  if ls -A "$1" | grep -q 'mbgcm-'; then fail "temporary file left in $1: $(ls -A "$1")"; fi
  ok
}

head -c 32 /dev/urandom >k32
head -c 16 /dev/urandom >k16
head -c 20 /dev/urandom >k20
K32HEX=$(od -An -tx1 -v k32 | tr -d ' \n')

# ---- help and usage errors --------------------------------------------------------------------
expect 0 "$BIN" --help
grep -q 'usage: mbgcm seal|open' out.bin || fail "--help prints no usage"
grep -q -- '--key-hex' out.bin && grep -qi 'process list\|visible' out.bin || fail "--help lacks the --key-hex warning"
grep -q 'Exit status' out.bin || fail "--help lacks the exit status"
expect 0 "$BIN" -h
expect 0 "$BIN" seal --help
expect 0 "$BIN" open -h
grep -q -- '--version' out.bin || fail "--help does not list --version"
for v in "--version" "-V" "seal --version" "open -V"; do
  # shellcheck disable=SC2086
  expect 0 "$BIN" $v
  grep -qxE 'mbgcm [0-9]+\.[0-9]+\.[0-9]+' out.bin || fail "$v printed: $(head -c 200 out.bin)"
  [ ! -s err ] || fail "$v wrote to stderr"
done

mkdata p100 100
expect 2 "$BIN"
expect 2 "$BIN" frobnicate --key-file k32 p100
expect 2 "$BIN" seal p100
expect_first 'key is required'
expect 2 "$BIN" seal --key-file k32 --key-hex "$K32HEX" p100
expect_first 'only one'
expect 2 "$BIN" seal --key-hex zz p100
expect 2 "$BIN" seal --key-hex "${K32HEX:0:30}" p100
expect 2 "$BIN" seal --key-file k20 p100
expect_err '20 bytes'
# key files in text form: say what is wrong and how to fix it (exit 2, one line)
{ cat k32; echo; } >k32-newline
expect 2 "$BIN" seal --key-file k32-newline p100
expect_err '33 bytes: 32 key bytes and a line end.*raw bytes.*truncate -s 32 k32-newline'
# a raw key whose last byte is CR, then a line end: still 32 key bytes and a line end
{ head -c 31 k32; printf '\r\n'; } >k32-cr-newline
expect 2 "$BIN" seal --key-file k32-cr-newline p100
expect_err '33 bytes: 32 key bytes and a line end.*truncate -s 32 k32-cr-newline'
{ cat k16; printf '\r\n'; } >k16-crlf
expect 2 "$BIN" open --key-fd 3 p100 3<k16-crlf
expect_err '16 key bytes and a line end.*raw bytes'
echo "$K32HEX" >k32-hex-newline
expect 2 "$BIN" seal --key-file k32-hex-newline p100
expect_err 'looks like hex text \(64 hex digits and a line end\).*--key-hex.*32 bytes'
printf '%s' "$K32HEX" >k32-hex
expect 2 "$BIN" seal --key-fd 3 p100 3<k32-hex
expect_err 'looks like hex text \(64 hex digits\).*--key-hex'
# 32 hex digits are 32 bytes: a valid length, but never a random key; refused, not used
printf '%s' "${K32HEX:0:32}" >k16-hex
expect 2 "$BIN" seal --key-file k16-hex p100
expect_err 'looks like hex text \(32 hex digits\).*--key-hex.*16 bytes'
[ ! -s out.bin ] || fail "a refused key file still sealed"
printf 'hunter2\n' >k-password
expect 2 "$BIN" seal --key-file k-password p100
expect_err '8 bytes and ends with a newline.*raw bytes'
head -c 200 /dev/urandom >k200
expect 2 "$BIN" seal --key-file k200 p100
expect_err 'longer than'
expect 2 "$BIN" seal --key-file k32 --threads 2 --frobnicate p100
expect_first 'unknown option --frobnicate'
expect 2 "$BIN" seal --key-file k32 --threads 0 p100
expect 2 "$BIN" seal --key-file k32 --threads 257 p100
expect 2 "$BIN" seal --key-file k32 --threads x p100
expect 2 "$BIN" seal --key-file k32 --frobnicate p100
expect 2 "$BIN" seal --key-file k32 -o
expect 2 "$BIN" seal --key-file k32 p100 p100
expect 2 "$BIN" seal --key-file k32 --context-hex abc p100
expect 2 "$BIN" seal --key-fd abc p100
expect 2 "$BIN" seal --key-file k32 -o out1 -o out2 p100
expect 2 "$BIN" seal --key-file k32 -o dir/ p100
[ ! -s out.bin ] || fail "a usage error wrote to stdout"

# ---- I/O errors ---------------------------------------------------------------------------------
expect 3 "$BIN" seal --key-file k32 no-such-input
expect_err 'no-such-input'
expect 3 "$BIN" seal --key-file no-such-key p100
expect 3 "$BIN" seal --key-file k32 -o no-such-dir/out p100
expect 3 "$BIN" seal --key-fd 9 p100
expect 3 "$BIN" open --key-file k32 .   # a directory: read fails

# ---- checks made before any output ------------------------------------------------------------
# A directory as INPUT is refused before the header is written: stdout stays empty.
mkdir -p somedir
for cmd in seal open; do
  expect 3 "$BIN" "$cmd" --key-file k32 somedir
  expect_err 'somedir is a directory'
  [ ! -s out.bin ] || fail "$cmd of a directory wrote $(stat -c %s out.bin) bytes to stdout"
  expect 3 "$BIN" "$cmd" --key-file k32 - <somedir
  expect_err 'standard input is a directory'
  [ ! -s out.bin ] || fail "$cmd of a directory on stdin wrote to stdout"
done
# -o naming a directory (or a FIFO) fails before the input is read: the input here
# is a pipe that never ends, so a tool that started the work would hang until the timeout.
mkfifo never-ends not-a-file
exec 8<>never-ends   # a writer that stays open: reads block, never see end of file
for out in somedir not-a-file; do
  expect 3 timeout 20 "$BIN" seal --key-file k32 -o "$out" <never-ends
  expect_err "$out is (a directory|not a regular file)"
  no_tmp .
  no_tmp somedir
done
exec 8>&-
[ -d somedir ] && [ -z "$(ls -A somedir)" ] || fail "-o somedir changed the directory"
[ -p not-a-file ] || fail "-o replaced a FIFO"
# seal refuses a terminal on stdout (binary), with a one-line hint; -o - forces it; open may
# write to a terminal. script(1) runs the tool on a pty and returns its exit status (-e).
command -v script >/dev/null || fail "script(1) (bsdutils) is needed for the terminal tests"
script -qec "'$BIN' seal --key-file k32 p100" /dev/null >tty.log 2>&1 </dev/null
rc=$?
[ "$rc" -eq 2 ] || fail "seal to a terminal exited $rc: $(cat -v tty.log | head -c 300)"
[ "$(tr -d '\r' <tty.log | grep -c .)" -eq 1 ] && grep -q 'refusing to write sealed.*terminal.*-o -' tty.log ||
  fail "seal to a terminal: no one-line hint: $(cat -v tty.log | head -c 300)"
ok
script -qec "'$BIN' seal --key-file k32 -o - p100" /dev/null >tty.log 2>&1 </dev/null ||
  fail "seal -o - to a terminal was refused: $(cat -v tty.log | head -c 300)"
"$BIN" seal --key-file k32 -o c100-tty p100 2>err || fail "seal for the terminal open"
script -qec "'$BIN' open --key-file k32 c100-tty" /dev/null >tty.log 2>&1 </dev/null ||
  fail "open to a terminal was refused: $(cat -v tty.log | head -c 300)"
ok

# ---- round trips ----------------------------------------------------------------------------------
lens="0 1 16383 16384 16385 32768 100000"
[ -z "$SLOW" ] && lens="$lens 3145728"
for n in $lens; do
  mkdata "p$n" "$n"
  # files and -o, 32-byte key file
  expect 0 "$BIN" seal --key-file k32 -o "c$n" "p$n"
  [ ! -s out.bin ] && [ ! -s err ] || fail "seal -o wrote to stdout/stderr"
  [ "$(stat -c %s "c$n")" -eq "$(sealed_size "$n")" ] || fail "sealed size of $n bytes: $(stat -c %s "c$n")"
  expect 0 "$BIN" open --key-file k32 -o "d$n" "c$n"
  cmp -s "p$n" "d$n" || fail "round trip of $n bytes (files)"
  # stdin/stdout, "-", hex key, context, 16-byte key through a descriptor, 2 threads
  "$BIN" seal --key-hex "$K32HEX" --context-hex 00ff10 <"p$n" >"s$n" 2>err || fail "seal via pipes ($n)"
  "$BIN" open --key-file k32 --context-hex 00FF10 --threads 2 - <"s$n" >"e$n" 2>err || fail "open via stdin ($n)"
  cmp -s "p$n" "e$n" || fail "round trip of $n bytes (pipes, context)"
  cat "p$n" | "$BIN" seal --key-fd 3 --threads 2 3<k16 | "$BIN" open --key-fd 4 4<k16 >"f$n" 2>err ||
    fail "seal | open with --key-fd ($n)"
  cmp -s "p$n" "f$n" || fail "round trip of $n bytes (key fd, pipe between)"
  ok
done
cmp -s c16385 s16385 && fail "two seals of one input are identical (salt not fresh)"
# -o replaces an existing file on success
echo old >existing
expect 0 "$BIN" open --key-file k32 -o existing c1
cmp -s p1 existing || fail "-o did not replace an existing file on success"
# -o - is stdout
expect 0 "$BIN" open --key-file k32 -o - c100000
cmp -s p100000 out.bin || fail "-o - should write to stdout"
no_tmp .

# ---- failures: exit 1, one line naming the class; -o leaves nothing ------------------------------
n=50000   # chunks 0..2 full, 3 final
mkdata pf "$n"
"$BIN" seal --key-file k32 --context-hex 0102 -o cf pf 2>err || fail "seal for the failure cases"
size=$(stat -c %s cf)
flip() { # FILE OFFSET OUT: copy with one byte changed
  cp "$1" "$3"
  local b
  b=$(od -An -tu1 -j "$2" -N1 "$1" | tr -d ' ')
  printf "$(printf '\\%03o' $(((b ^ 1) & 255)))" | dd of="$3" bs=1 seek="$2" conv=notrunc status=none
}
mkdir -p o
open_fails() { # PATTERN INPUT [extra args]: open -o fails with PATTERN; OUT absent; no temp
  local pat="$1" in="$2"; shift 2
  rm -f o/out
  expect 1 "$BIN" open --key-file k32 --context-hex 0102 -o o/out "$@" "$in"
  expect_err "$pat"
  [ ! -e o/out ] || fail "OUT created although open failed ($pat)"
  no_tmp o
  # an existing OUT is not clobbered
  echo keep >o/out
  expect 1 "$BIN" open --key-file k32 --context-hex 0102 -o o/out "$@" "$in"
  [ "$(cat o/out)" = keep ] || fail "existing OUT clobbered by a failed open ($pat)"
  no_tmp o
  rm -f o/out
}
expect 1 "$BIN" open --key-file k16 --context-hex 0102 cf
expect_err 'wrong key'
expect 1 "$BIN" open --key-file k32 cf
expect_err 'wrong key or context'
expect 1 "$BIN" open --key-file k32 --context-hex 0103 --threads 2 -o o/out cf
expect_err 'wrong key or context'
[ ! -e o/out ] || fail "OUT created with a wrong context"
flip cf 3 bad-salt
open_fails 'wrong key or context' bad-salt
flip cf 40 bad-commit
open_fails 'wrong key or context' bad-commit
flip cf $((56 + 16400 + 5)) bad-chunk1
open_fails 'modified.*chunk 1' bad-chunk1
flip cf $((56 + 16400 + 16384 + 2)) bad-tag1
open_fails 'modified.*chunk 1' bad-tag1
flip cf $((size - 1)) bad-final
open_fails 'modified or truncated.*chunk 3' bad-final
head -c $((56 + 2 * 16400)) cf >cut-boundary
open_fails 'truncated' cut-boundary
head -c 40 cf >cut-header
open_fails 'truncated' cut-header
: >empty
open_fails 'truncated' empty
head -c $((size - 100)) cf >cut-final
open_fails 'modified or truncated' cut-final
{ cat cf; printf 'garbage'; } >trailing
open_fails 'trailing data' trailing
{ cat cf; head -c 16400 <(tail -c +57 cf); } >extra-chunk
open_fails 'trailing data' extra-chunk
{ head -c $((56 + 16400)) cf; tail -c +57 cf; } >dup-chunk0
open_fails 'modified.*chunk 1' dup-chunk0
{ head -c 56 cf; tail -c +$((57 + 16400)) cf | head -c 16400; head -c $((56 + 16400)) cf | tail -c 16400; tail -c +$((57 + 32800)) cf; } >swapped
open_fails 'modified.*chunk 0' swapped
# stdin → stdout failures: one line, exit 1
expect 1 "$BIN" open --key-file k32 --context-hex 0102 <trailing
expect_err 'trailing data'
expect 1 "$BIN" open --key-file k32 --context-hex 0102 - <bad-chunk1
expect_err 'modified'

# ---- stdout: only authenticated whole chunks --------------------------------------------------------
check_prefix() { # PLAIN OUTPUT MAXBYTES: OUTPUT is a whole-chunk prefix of PLAIN, <= MAXBYTES
  local got
  got=$(stat -c %s "$2")
  [ $((got % 16384)) -eq 0 ] || fail "stdout released a partial chunk ($got bytes)"
  [ "$got" -le "$3" ] || fail "stdout released $got bytes, past the failing chunk ($3)"
  cmp -s "$2" <(head -c "$got" "$1") || fail "stdout released bytes that are not the plaintext"
  ok
}
expect 1 "$BIN" open --key-file k32 --context-hex 0102 bad-chunk1
check_prefix pf out.bin 16384
if [ -z "$SLOW" ]; then
  # past the first 8 MiB block: the authentic chunks before it are released, the rest not
  n=$((10 * 1024 * 1024 + 5))
  mkdata pbig "$n"
  "$BIN" seal --key-file k32 -o cbig pbig 2>err || fail "seal big"
  bad=600   # a chunk in the second block
  flip cbig $((56 + bad * 16400 + 99)) cbig-bad
  expect 1 "$BIN" open --key-file k32 cbig-bad
  expect_err "modified.*chunk $bad"
  check_prefix pbig out.bin $((bad * 16384))
  [ -s out.bin ] || fail "no authenticated chunk was released before chunk $bad"
  expect 1 "$BIN" open --key-file k32 --threads 2 <cbig-bad
  check_prefix pbig out.bin $((bad * 16384))
  expect 0 "$BIN" open --key-file k32 --threads 2 -o dbig cbig
  cmp -s pbig dbig || fail "big round trip"
fi

# ---- a reader that stops early (EPIPE) ---------------------------------------------------------------
# Like standard filters, the tool ends by SIGPIPE (status 141 in the shell) and says nothing.
# env sets SIGPIPE's disposition explicitly: the shell running this script may have inherited
# it ignored, and a shell cannot reset an inherited ignore. With SIGPIPE ignored the closed
# pipe is an ordinary write error (exit 3, one line). The outputs exceed a pipe buffer (64 KiB)
# so that the tool is still writing when head exits.
mkdata p1m $((1024 * 1024))
"$BIN" seal --key-file k32 -o c1m p1m 2>err || fail "seal for the EPIPE cases"
epipe() { # WANT_RC SIGNAL_MODE CMD...: CMD's stdout goes to head -c 10
  local want="$1" mode="$2"; shift 2
  env "--$mode-signal=PIPE" "$@" 2>err | head -c 10 >/dev/null
  local rc=${PIPESTATUS[0]}
  [ "$rc" -eq "$want" ] || fail "exit $rc, expected $want with a closed pipe: $*"
  ok
}
epipe 141 default "$BIN" open --key-file k32 c1m
[ ! -s err ] || fail "open | head: stderr not empty: $(cat err)"
epipe 141 default "$BIN" open --key-file k32 --threads 2 - <c1m
[ ! -s err ] || fail "open - | head: stderr not empty: $(cat err)"
epipe 141 default "$BIN" seal --key-file k32 p1m
[ ! -s err ] || fail "seal | head: stderr not empty: $(cat err)"
epipe 141 default "$BIN" open --key-file k32 -o - c1m
[ ! -s err ] || fail "open -o - | head: stderr not empty: $(cat err)"
epipe 3 ignore "$BIN" open --key-file k32 c1m
expect_err 'cannot write standard output: Broken pipe'

# ---- killed mid-way: the temporary file goes ----------------------------------------------------------
mkfifo fifo
"$BIN" seal --key-file k32 -o o/killed <fifo 2>err &
pid=$!
exec 7>fifo
head -c 100000 /dev/urandom >&7
for _ in 1 2 3 4 5 6 7 8 9 10; do ls -A o | grep -q mbgcm- && break; sleep 0.1; done
ls -A o | grep -q mbgcm- || fail "no temporary file while sealing to -o"
kill -TERM "$pid"
wait "$pid"
rc=$?
exec 7>&-
[ "$rc" -eq 143 ] || fail "killed seal exited $rc"
[ ! -e o/killed ] || fail "OUT exists after the tool was killed"
no_tmp o

# ---- progress bar -------------------------------------------------------------------------------------
# Not on a pipe: stderr stays empty for a large input...
mkdata p20m $((20 * 1024 * 1024))
if [ -z "$SLOW" ]; then
  expect 0 "$BIN" seal --key-file k32 -o c20m p20m
  [ ! -s err ] || fail "output on stderr without a terminal: $(cat err)"
  # ...and on a terminal (script(1) gives the tool a pty) a bar is drawn.
  if command -v script >/dev/null; then
    script -qec "'$BIN' open --key-file k32 -o d20m c20m" /dev/null >tty.log 2>&1 </dev/null ||
      fail "open under script(1) failed: $(cat tty.log)"
    grep -q 'GB/s' tty.log && grep -q '%' tty.log || fail "no progress bar on a terminal: $(cat -v tty.log | head -c 300)"
    cmp -s p20m d20m || fail "round trip under a terminal"
    script -qec "'$BIN' seal --key-file k32 -o c100 p100" /dev/null >tty.log 2>&1 </dev/null
    ! grep -q 'GB/s' tty.log || fail "progress bar for a small input"
    ok
  fi
fi

echo "test_cli_mbgcm: OK ($checks checks)"
