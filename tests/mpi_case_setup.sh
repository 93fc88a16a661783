# Sourced by the mpi_*_case.sh scripts that compare a run under mpirun with
# one process: takes RESHARDCTL and PROCESSES off the arguments, skips (exit
# 77) where mpirun is absent, sets root_flag (as root, Open MPI's mpirun wants
# --allow-run-as-root) and a scratch folder $work, removed at the end.
set -u
reshardctl=$1 processes=$2
shift 2
command -v mpirun >/dev/null || { echo "skipped: no mpirun"; exit 77; }
root_flag=()
[ "$(id -u)" -eq 0 ] && root_flag=(--allow-run-as-root)
work=$(mktemp -d) && trap 'rm -rf "$work"' EXIT
