#!/usr/bin/env bash
# `mpirun -np N mbir-recon`: one reconstruction across N processes gives what one process gives, prints its log
# once and names the ranks; each rank reads only its share of the views from a raw NRRD or MetaImage file (the
# bytes it read, as Linux counts them in /proc/self/io) and holds only those in memory; and a rank killed with SIGKILL mid-solve ends the whole job with a message and a
# non-zero status within 60 s, leaving no output file.
#   mpi-tools-test.sh MPIEXEC TOOLS_DIR WORK_DIR
set -euo pipefail
mpiexec=$1 tools=$2 work=$3
# As root (CI), Open MPI wants both ALLOW variables; ranks share the cores with each other and with other tests, so
# they wait without spinning.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=1 OMP_WAIT_POLICY=PASSIVE
export MBIR_NUM_THREADS=1
fail() {
  echo "FAILED: $*"
  exit 1
}
rm -rf "$work" && mkdir -p "$work" && cd "$work"

# Prime view and slice counts, so that the shards are uneven and padded.
"$tools/mbir-geometry" --type cone --views 37 --rows 19 --channels 40 --output cone.json
"$tools/mbir-phantom" --geometry cone.json --output phantom.nrrd > /dev/null
"$tools/mbir-project" --geometry cone.json --input phantom.nrrd --snr-db 30 --output sinogram.nrrd > /dev/null
"$tools/mbir-recon" --geometry cone.json --input sinogram.nrrd --max-iterations 4 --output one.nrrd > one.log
for n in 2 3; do
  "$mpiexec" -np $n --oversubscribe "$tools/mbir-recon" --geometry cone.json --input sinogram.nrrd --max-iterations 4 \
    --verbose --output ranks$n.nrrd --reference one.nrrd > ranks$n.log 2>&1 || { cat ranks$n.log; fail "np $n"; }
  cat ranks$n.log
  grep -q "on $n x CPU (MPI, $n ranks)" ranks$n.log || fail "np $n: no '$n x CPU (MPI, $n ranks)' in the summary"
  [ "$(grep -c '^MBIR: ' ranks$n.log)" = 1 ] || fail "np $n: the result line was printed more than once"
  [ "$(grep -c '^Iteration 1/' ranks$n.log)" = 1 ] || fail "np $n: the log was printed more than once"
  nrmse=$(sed -n 's/^MBIR: .*NRMSE \([0-9.e+-]*\) against.*/\1/p' ranks$n.log)
  awk -v e="$nrmse" 'BEGIN { exit !(e != "" && e < 1e-4) }' || fail "np $n: NRMSE '$nrmse' against one process"
  echo "np $n: NRMSE $nrmse against the one-process recon"
done

# Each rank reads and holds its views only: 3 ranks, a 1.2 MB sinogram as raw NRRD and as MetaImage (with weights
# made from it, on each rank from its own views).
"$tools/mbir-geometry" --type parallel --views 96 --rows 24 --channels 128 --output share.json > /dev/null
"$tools/mbir-phantom" --geometry share.json --output share-phantom.nrrd > /dev/null
for format in nrrd mha; do
  weights=()
  [ $format = mha ] && weights=(--weight-type transmission)
  "$tools/mbir-project" --geometry share.json --input share-phantom.nrrd --snr-db 30 --output share.$format > /dev/null
  "$tools/mbir-recon" --geometry share.json --input share.$format "${weights[@]}" --max-iterations 2 \
    --output share-one.nrrd > /dev/null
  "$mpiexec" -np 3 --oversubscribe "$tools/mbir-recon" --geometry share.json --input share.$format "${weights[@]}" \
    --max-iterations 2 --verbose --output share-3.nrrd --reference share-one.nrrd > share-$format.log 2>&1 ||
    { cat share-$format.log; fail "$format: np 3"; }
  grep "^rank " share-$format.log
  size=$(stat -c %s share.$format)
  for rank in 0 1 2; do
    read -r first last read_bytes held < <(sed -n "s/^rank $rank of 3: --input .*: views \([0-9]*\) to \([0-9]*\) of 96, \([0-9]*\) bytes read of $size, \([0-9]*\) bytes held$/\1 \2 \3 \4/p" share-$format.log)
    [ "$first" = $((rank * 32)) ] && [ "$last" = $((rank * 32 + 31)) ] || fail "$format: rank $rank read views '$first' to '$last'"
    # A third of the data, and the header read a few times through 8 KiB buffers.
    [ "$read_bytes" -le $((size / 3 + 65536)) ] || fail "$format: rank $rank read $read_bytes bytes of a $size-byte file"
    # In memory: its 32 views of 24 x 128 floats, not the whole sinogram.
    [ "$held" = $((32 * 24 * 128 * 4)) ] || fail "$format: rank $rank holds '$held' bytes of projections"
    # The result (128 x 128 x 24): whole on rank 0, which writes it; each other rank holds its 8 slices only.
    read -r first last held < <(sed -n "s/^rank $rank of 3: --output .*: slices \([0-9]*\) to \([0-9]*\) of 24, \([0-9]*\) bytes held$/\1 \2 \3/p" share-$format.log)
    if [ $rank = 0 ]; then expect=(0 23 $((128 * 128 * 24 * 4))); else expect=($((rank * 8)) $((rank * 8 + 7)) $((128 * 128 * 8 * 4))); fi
    [ "$first $last $held" = "${expect[*]}" ] || fail "$format: rank $rank holds slices '$first' to '$last' ('$held' bytes) of the result"
  done
  nrmse=$(sed -n 's/^MBIR: .*NRMSE \([0-9.e+-]*\) against.*/\1/p' share-$format.log)
  awk -v e="$nrmse" 'BEGIN { exit !(e != "" && e < 1e-4) }' || fail "$format: NRMSE '$nrmse' against one process"
  echo "$format ${weights[*]}: each of 3 ranks read and holds its 32 views, the result whole on rank 0 alone; NRMSE $nrmse against the one-process recon"
done

# The direct recon and the back projection from each rank's views alone equal one process's.
"$tools/mbir-recon" --geometry share.json --input share.nrrd --direct --output share-fbp-one.nrrd > /dev/null
"$tools/mbir-back-project" --geometry share.json --input share.nrrd --output share-back-one.nrrd > /dev/null
"$mpiexec" -np 3 --oversubscribe "$tools/mbir-recon" --geometry share.json --input share.nrrd --direct \
  --output share-fbp-3.nrrd > share-fbp.log 2>&1 || { cat share-fbp.log; fail "direct recon: np 3"; }
"$mpiexec" -np 3 --oversubscribe "$tools/mbir-back-project" --geometry share.json --input share.nrrd \
  --output share-back-3.nrrd > share-back.log 2>&1 || { cat share-back.log; fail "back projection: np 3"; }
for what in fbp back; do
  nrmse=$("$tools/mbir-compare" --reference share-$what-one.nrrd --image share-$what-3.nrrd | sed -n 's/.*NRMSE \([0-9.e+-]*\).*/\1/p' | head -1)
  awk -v e="$nrmse" 'BEGIN { exit !(e != "" && e < 1e-4) }' || fail "$what: NRMSE '$nrmse' of 3 ranks against one process"
  echo "$what on 3 ranks from their views: NRMSE $nrmse against one process"
done

# A long recon (no early stop) on 2 ranks; rank 1 is killed once both compute.
"$tools/mbir-geometry" --type parallel --views 192 --rows 48 --channels 192 --output long.json > /dev/null
"$tools/mbir-phantom" --geometry long.json --output long-phantom.nrrd > /dev/null
"$tools/mbir-project" --geometry long.json --input long-phantom.nrrd --output long-sinogram.nrrd > /dev/null
"$mpiexec" -np 2 --oversubscribe "$tools/mbir-recon" --geometry long.json --input long-sinogram.nrrd \
  --max-iterations 200 --stop-threshold 0 --verbose --output killed.nrrd > killed.log 2>&1 &
launcher=$!
for _ in $(seq 120); do
  grep -q '^Iteration 1/' killed.log && break
  sleep 0.5
done
grep -q '^Iteration 1/' killed.log || { cat killed.log; fail "the long recon did not start iterating"; }
ranks=($(pgrep -P "$launcher" -f mbir-recon || true))
[ "${#ranks[@]}" = 2 ] || fail "expected 2 rank processes under mpirun, found '${ranks[*]}'"
killed=$SECONDS
kill -KILL "${ranks[1]}"
status=0
wait "$launcher" || status=$?
elapsed=$((SECONDS - killed))
cat killed.log
echo "after SIGKILL of one rank: mpirun ended in $elapsed s with status $status"
[ "$status" != 0 ] || fail "the job reported success"
[ "$elapsed" -le 60 ] || fail "the job took $elapsed s to end"
[ ! -e killed.nrrd ] || fail "an output file was left"
grep -qi "signal 9\|killed" killed.log || fail "no message names the killed rank"
echo "PASSED"
