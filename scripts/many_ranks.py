#!/usr/bin/env python3
"""Writes a program on a mesh of many ranks with small tensors, the way a dump
reads before the partition pass: what `validate` under `mpirun -np P` shares
out (README, "Validating a real model"). On a [RANKS/8, 8] mesh: an input
replicated on every rank, then LAYERS times a relu (replicated) and a matmul
with a weight column-sharded over the mesh's last dim; the next layer wants
its operand replicated, so the partition pass inserts a reshard (an
all_gather within each group of 8 consecutive ranks). Every replicated value
is held once per rank: SIZE x SIZE doubles times RANKS.

  many_ranks.py --ranks 4096 --size 128 --layers 4 > many.ir
  mpirun -np 8 --oversubscribe reshardctl validate --apply many.ir
"""
import argparse


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ranks", type=int, default=64, help="processes of the mesh (a multiple of 8)")
    parser.add_argument("--size", type=int, default=16, help="the tensors are SIZE x SIZE (a multiple of 8)")
    parser.add_argument("--layers", type=int, default=2)
    args = parser.parse_args()
    if args.ranks < 8 or args.ranks % 8 or args.size < 8 or args.size % 8 or args.layers < 1:
        parser.error("--ranks and --size are multiples of 8, --layers at least 1")
    mesh_shape = [args.ranks // 8, 8]
    mesh = "{shape:[%d,8],process_ids:[%s]}" % (mesh_shape[0], ",".join(str(r) for r in range(args.ranks)))
    n = args.size

    def tensor(mapping):
        return "pd_dist.tensor<%dx%dxf32, mesh_shape:[%d,8],dims_mappings:[%s]>" % (
            n, n, mesh_shape[0], ",".join(str(d) for d in mapping))

    def dist(operands, results):
        text = "{mesh:" + mesh
        for i, m in enumerate(operands):
            text += ",operand(%d):{dims_maping:[%s]}" % (i, ",".join(str(d) for d in m))
        for i, m in enumerate(results):
            text += ",result(%d):{dims_maping:[%s]}" % (i, ",".join(str(d) for d in m))
        return text + "}"

    rep, col = [-1, -1], [-1, 1]
    lines = ["{"]
    lines.append('    (%%0) = "pd_op.data" () {dtype:(pd_op.DataType)float32,name:"x",op_dist_attr:%s,'
                 'place:(pd_op.Place)Place(undefined:0),shape:(pd_op.IntArray)[%d,%d],stop_gradient:[true]} : () -> %s'
                 % (dist([], [rep]), n, n, tensor(rep)))
    value, next_id = "%0", 1
    mapping = rep
    for layer in range(args.layers):
        weight = "%%%d" % next_id
        lines.append('    (%s) = "builtin.parameter" () {op_dist_attr:%s,parameter_name:"w%d",persistable:[true],'
                     'stop_gradient:[false]} : () -> %s' % (weight, dist([], [col]), layer, tensor(col)))
        relu = "%%%d" % (next_id + 1)
        # relu wants its operand replicated: after the first layer the pass reshards the column-sharded matmul
        lines.append('    (%s) = "pd_op.relu" (%s) {op_dist_attr:%s,stop_gradient:[false]} : (%s) -> %s'
                     % (relu, value, dist([rep], [rep]), tensor(mapping), tensor(rep)))
        out = "%%%d" % (next_id + 2)
        lines.append('    (%s) = "pd_op.matmul" (%s, %s) {op_dist_attr:%s,stop_gradient:[false],transpose_x:false,'
                     'transpose_y:false} : (%s, %s) -> %s'
                     % (out, relu, weight, dist([rep, col], [col]), tensor(rep), tensor(col), tensor(col)))
        value, mapping, next_id = out, col, next_id + 3
    lines.append("}")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
