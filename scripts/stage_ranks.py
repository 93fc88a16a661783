#!/usr/bin/env python3
"""Writes a program whose partial sum on a 1-D mesh of RANKS processes is used
on a disjoint 1-D mesh of RANKS others (a pipeline stage handing its output on):
the reshard between meshes whose pairs grew with RANKS x RANKS before they were
found per block of chunks (README, "Planner").

  stage_ranks.py --ranks 4096 > stages.ir
  /usr/bin/time -v reshardctl plan --apply stages.ir >/dev/null
"""
import argparse


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=4096, help="processes of each mesh")
    parser.add_argument("--rows", type=int, default=2048, help="the tensors are ROWS x 1024 f32")
    args = parser.parse_args()
    if args.ranks < 1 or args.rows < 1:
        parser.error("--ranks and --rows are at least 1")
    n = args.ranks

    def mesh(first):
        return "{shape:[%d],process_ids:[%s]}" % (n, ",".join(str(first + i) for i in range(n)))

    def tensor(rows, partial=""):
        return "pd_dist.tensor<%dx1024xf32, mesh_shape:[%d],dims_mappings:[-1,-1]%s>" % (rows, n, partial)

    src, dst, x, w = mesh(0), mesh(n), tensor(args.rows), tensor(1024)
    data = ('    (%%%d) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"%s",op_dist_attr:{mesh:%s,'
            'result(0):{dims_maping:[-1,-1]}},place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[%d,1024],'
            'stop_gradient:[true]} : () -> %s')
    summed = tensor(args.rows, ", partial(0,SUM)")
    print("\n".join([
        "{",
        data % (0, "x", src, args.rows, x),
        data % (1, "w", src, 1024, w),
        '    (%%2) = "pd_op.matmul" (%%0, %%1) {op_dist_attr:{mesh:%s,operand(0):{dims_maping:[-1,0]},'
        'operand(1):{dims_maping:[0,-1]},result(0):{dims_maping:[-1,-1],partial(0,SUM)}},stop_gradient:[false],'
        'transpose_x:false,transpose_y:false} : (%s, %s) -> %s' % (src, x, w, summed),
        '    (%%3) = "pd_op.relu" (%%2) {op_dist_attr:{mesh:%s,operand(0):{dims_maping:[-1,-1]},'
        'result(0):{dims_maping:[-1,-1]}},stop_gradient:[false]} : (%s) -> %s' % (dst, summed, x),
        "}"]))


if __name__ == "__main__":
    main()
