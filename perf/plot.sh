#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# perf/plot.sh — PNG of a throughput CSV from mbgcm-bench: GB/s vs message size (log x), one
# line per engine, one panel per (key size, direction, key count) present in the CSV. mbgcm ring
# and burst engines are solid, one-shot dash-dotted, portable C engines thin grey, peers dashed
# (one colour per ipsec-mb API; ipsec-mb 1.x thin and dotted, in a lighter shade); an engine has
# the same colour in every panel. The imix rows are not plotted (they have no single size; see
# the table).
#   perf/plot.sh RESULTS.csv OUT.png ["subtitle"]
# Needs gnuplot (Debian: gnuplot-nox, installed by scripts/setup.sh).
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: $0 RESULTS.csv OUT.png [subtitle]" >&2
  exit 2
fi
CSV=$1
PNG=$2
SUB=${3:-}
command -v gnuplot >/dev/null || { echo "plot: gnuplot not found (apt-get install gnuplot-nox)" >&2; exit 1; }
[ -s "$CSV" ] || { echo "plot: $CSV is missing or empty" >&2; exit 1; }

TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

# Columns (mbgcm-bench --csv): 1 aes_bits 2 direction 3 bytes 4 avg_bytes 5 engine 6 api 7 arch
# ... 14 gb_per_s ... 19 keys (absent in older CSVs). Engines keep their first-seen order (the
# table's order).
awk -F, -v dir="$TMP" '
  BEGIN { ne = 0; np = 0 }
  NR == 1 { next }
  $3 == "imix" { next }
  {
    if (!($5 in eidx)) { eidx[$5] = ne; ename[ne] = $5; emb[ne] = ($5 ~ /^mbgcm-/); ne++ }
    p = $1 "-" $2 "-" (NF >= 19 ? $19 : "")
    if (!(p in pidx)) { pidx[p] = np; pname[np] = p; np++ }
    f = dir "/p" pidx[p] "_e" eidx[$5] ".dat"
    print $3, $14 >> f
    seen[pidx[p], eidx[$5]] = 1
  }
  END {
    for (i = 0; i < np; i++) print "panel", i, pname[i] > (dir "/panels")
    for (e = 0; e < ne; e++) print "engine", e, emb[e], ename[e] > (dir "/engines")
  }' "$CSV"

[ -s "$TMP/panels" ] || { echo "plot: no sized rows in $CSV" >&2; exit 1; }
npanels=$(wc -l <"$TMP/panels")
cols=$(( npanels > 1 ? 2 : 1 ))
rows=$(( (npanels + cols - 1) / cols ))
width=$(( cols * 800 ))
height=$(( rows * 560 + 60 ))

# Line style of engine number $1 (mbgcm: $2 = 1) named $3 (see the header).
MB_COLOURS=('#1f77b4' '#2ca02c' '#9467bd' '#000000' '#17becf' '#e377c2' '#bcbd22' '#393b79'
            '#637939' '#7b4173' '#6baed6' '#31a354')
GREYS=('#999999' '#b0b0b0' '#c4c4c4' '#888888' '#a4a4a4' '#bbbbbb' '#cccccc' '#909090')
nmb=0
ngrey=0
declare -A STYLE
while read -r _ e mb ename; do
  pt=$((e % 13 + 1))
  case "$ename" in
    ipsec-mb-1.*-direct) s="lc rgb '#e07b7b' lw 1.5 dt 3 pt $pt" ;;
    ipsec-mb-1.*-job) s="lc rgb '#f0a050' lw 1.5 dt 3 pt $pt" ;;
    ipsec-mb-1.*-burst) s="lc rgb '#d07ab0' lw 1.5 dt 3 pt $pt" ;;
    ipsec-mb-*direct) s="lc rgb '#d62728' lw 2 dt 2 pt $pt" ;;
    ipsec-mb-*job) s="lc rgb '#ff7f0e' lw 2 dt 2 pt $pt" ;;
    ipsec-mb-*burst) s="lc rgb '#e7298a' lw 2 dt 2 pt $pt" ;;
    ipsec-mb-*quic) s="lc rgb '#8b0000' lw 2 dt 2 pt $pt" ;;
    openssl-evp) s="lc rgb '#8c564b' lw 2 dt 2 pt $pt" ;;
    *generic*) s="lc rgb '${GREYS[ngrey % 8]}' lw 1 dt 1 pt $pt"; ngrey=$((ngrey + 1)) ;;
    *) if [ "$mb" = 1 ]; then
         dt=1; case "$ename" in *oneshot*) dt=4 ;; esac   # one-shot API dash-dotted
         s="lc rgb '${MB_COLOURS[nmb % 12]}' lw 2 dt $dt pt $pt"; nmb=$((nmb + 1))
       else s="lc rgb '#ff9896' lw 2 dt 3 pt $pt"; fi ;;
  esac
  STYLE[$e]="$s ps 0.8"
done <"$TMP/engines"
style_of() { echo "${STYLE[$1]}"; }

{
  echo "set terminal pngcairo size $width,$height font 'Sans,10' noenhanced"
  echo "set output '$PNG'"
  echo "set logscale x 2"
  echo "set grid xtics ytics"
  echo "set xlabel 'message size (bytes, log scale)'"
  echo "set ylabel 'GB/s (one thread)'"
  echo "set key top left reverse Left font 'Sans,9'"
  echo "set yrange [0:*]"
  echo "set format x '%g'"
  title="mbgcm-bench: AES-GCM throughput vs message size"
  [ -n "$SUB" ] && title="$title\\n$SUB"
  echo "set multiplot layout $rows,$cols title \"$title\" font 'Sans,12'"
  while read -r _ p name; do
    bits=${name%%-*}
    rest=${name#*-}
    d=${rest%%-*}
    keys=${rest#*-}
    [ "$d" = enc ] && dname=encrypt || dname=decrypt
    case "$keys" in
      "") ktitle="" ;;
      1) ktitle=", one key" ;;
      *) ktitle=", $keys keys" ;;
    esac
    echo "set title 'AES-$bits-GCM $dname$ktitle'"
    plot="plot"
    sep=""
    while read -r _ e mb ename; do
      f="$TMP/p${p}_e${e}.dat"
      [ -s "$f" ] || continue
      sort -n "$f" -o "$f"
      plot="$plot$sep '$f' using 1:2 with linespoints $(style_of "$e" "$mb" "$ename") title '$ename'"
      sep=","
    done <"$TMP/engines"
    echo "$plot"
  done <"$TMP/panels"
  echo "unset multiplot"
} >"$TMP/plot.gp"

gnuplot "$TMP/plot.gp"
echo "plot: wrote $PNG"
