#!/usr/bin/env python3
"""Writes a real-sized tensor-parallel (and pipeline) program in Paddle's PIR
text, the way a dump of a semi-auto-parallel training step reads before the
partition pass: Llama-style blocks (RMS norm, attention, SwiGLU MLP) or
GPT-style blocks (layer norm, attention, GELU MLP), column-parallel q/k/v and
up projections, row-parallel o and down projections (partial sums), a
replicated LM head and cross entropy.

  real_model.py --model llama7b --layers 32 --tp 2            > llama7b_tp2.ir
  real_model.py --model llama7b --layers 32 --tp 2 --dp 2     > llama7b_tp2_dp2.ir
  real_model.py --model gpt --layers 24 --tp 2 --pp 2         > gpt_tp2_pp2.ir

Then `reshardctl validate --apply --shrink FILE` (the partition pass inserts
the reshards: partial sums to replicas, and the pipeline stage boundary).
"""
import argparse
import math
import sys

MODELS = {
    # hidden, heads, head dim, ffn, vocab, sequence, norm, activation
    "llama7b": dict(hidden=4096, heads=32, head_dim=128, ffn=11008, vocab=32000, seq=4096, gpt=False),
    "gpt": dict(hidden=2048, heads=16, head_dim=128, ffn=8192, vocab=50304, seq=2048, gpt=True),
    "tiny": dict(hidden=16, heads=2, head_dim=8, ffn=32, vocab=8, seq=4, gpt=False),
    "tiny-gpt": dict(hidden=16, heads=2, head_dim=8, ffn=64, vocab=8, seq=4, gpt=True),
}


def dims_text(m):
    return "[" + ",".join(str(d) for d in m) + "]"


class Program:
    def __init__(self, tp, dp, pp):
        self.tp, self.dp, self.pp = tp, dp, pp
        self.next = 0
        self.lines = []
        ranks = tp * dp
        self.meshes = []
        for stage in range(pp):
            ids = list(range(stage * ranks, (stage + 1) * ranks))
            shape = [dp, tp] if dp > 1 else [tp]
            self.meshes.append((shape, ids))
        # the mesh dims: data parallel first when present
        self.dp_dim = 0 if dp > 1 else None
        self.tp_dim = 1 if dp > 1 else 0

    def tensor(self, shape, mapping, dtype="f32", partial=None, stage=0):
        mesh_shape = self.meshes[stage][0]
        dims = "x".join(str(d) for d in shape)
        body = f"{dims}x{dtype}" if shape else dtype
        text = f"pd_dist.tensor<{body}, mesh_shape:{dims_text(mesh_shape)},dims_mappings:{dims_text(mapping)}"
        if partial is not None:
            text += f", partial({partial},SUM)"
        return text + ">"

    def entry(self, value):
        if value is None or value[2] is None:
            return "{null}"
        mapping, partial = value[1], value[3]
        text = "{dims_maping:" + dims_text(mapping)
        if partial is not None:
            text += f",partial({partial},SUM)"
        return text + "}"

    def op(self, name, operands, results, attrs, stage, declare=None):
        """results: list of (shape, mapping, dtype, partial) or None; returns the values."""
        values = []
        for r in results:
            if r is None:  # Paddle names an absent result too; its type is <<NULL TYPE>>
                values.append((f"%{self.next}", None, None, None, None, stage))
                self.next += 1
            else:
                shape, mapping, dtype, partial = r
                values.append((f"%{self.next}", mapping, shape, partial, dtype, stage))
                self.next += 1
        shape, ids = self.meshes[stage]
        dist = "{mesh:{shape:" + dims_text(shape) + ",process_ids:" + dims_text(ids) + "}"
        for i, v in enumerate(operands):
            wanted = self.declared(v, stage) if v is not None else None
            if declare and i in declare:  # the op wants this operand laid out otherwise: the pass reshards it
                wanted = (wanted[0], declare[i]) + wanted[2:]
            dist += f",operand({i}):" + (self.entry(wanted) if v is not None else "{null}")
        for i, v in enumerate(values):
            dist += f",result({i}):" + self.entry(v)
        dist += "}"
        attrs = dict(attrs)
        attrs["op_dist_attr"] = dist
        attrs["stop_gradient"] = "[" + ",".join("false" for _ in results) + "]"
        attr_text = "{" + ",".join(f"{k}:{attrs[k]}" for k in sorted(attrs)) + "}"

        def type_of(v):
            if v is None or v[2] is None:
                return "<<NULL TYPE>>"
            return self.tensor(v[2], v[1], v[4], v[3], v[5])

        names = ", ".join(v[0] if v else "<<NULL VALUE>>" for v in values)
        ops = ", ".join(v[0] if v else "<<NULL VALUE>>" for v in operands)
        signature = f"({', '.join(type_of(v) for v in operands)}) -> {', '.join(type_of(v) for v in values)}"
        self.lines.append(f'    ({names}) = "{name}" ({ops}) {attr_text} : {signature}')
        return values

    def declared(self, value, stage):
        """How an op expects an operand: as it is, except a partial sum, which it wants summed."""
        name, mapping, shape, partial, dtype, _ = value
        return (name, mapping, shape, None, dtype, stage)


def row(shape, mapping, dtype="f32", partial=None):
    return (shape, mapping, dtype, partial)


def build(model, layers, tp, dp, pp, batch):
    m = MODELS[model]
    h, nh, hd, ffn, vocab, seq = m["hidden"], m["heads"], m["head_dim"], m["ffn"], m["vocab"], m["seq"]
    p = Program(tp, dp, pp)
    b = batch * dp
    T = p.tp_dim
    D = p.dp_dim if dp > 1 else -1

    def act(*rest):  # an activation's mapping: batch over data parallel
        return [D] + list(rest)

    def data(name, shape, mapping, dtype, dtype_name, stage=0):
        return p.op("pd_op.data", [], [row(shape, mapping, dtype)],
                    {"dtype": f"(pd_op.DataType){dtype_name}", "name": f'"{name}"',
                     "place": "(pd_op.Place)Place(undefined:0)", "shape": "(pd_op.IntArray)" + dims_text(shape)}, stage)[0]

    def param(name, shape, mapping, stage):
        return p.op("builtin.parameter", [], [row(shape, mapping)],
                    {"is_distributed": "[false]", "is_parameter": "[true]", "need_clip": "[true]",
                     "parameter_name": f'"{name}"', "persistable": "[true]", "trainable": "[true]"}, stage)[0]

    def matmul(x, w, out_mapping, partial=None, transpose_y=False, stage=0, out_shape=None):
        shape = out_shape or (x[2][:-1] + [w[2][0] if transpose_y else w[2][-1]])
        return p.op("pd_op.matmul", [x, w], [row(shape, out_mapping, "f32", partial)],
                    {"transpose_x": "false", "transpose_y": "true" if transpose_y else "false"}, stage)[0]

    def int_array(values, stage):
        return p.op("pd_op.full_int_array", [], [row([len(values)], [-1], "i64")],
                    {"dtype": "(pd_op.DataType)int64", "place": "(pd_op.Place)Place(cpu)",
                     "value": "[" + ",".join(f"(Int64){v}" for v in values) + "]"}, stage)[0]

    def unary(name, x, attrs, stage, mapping=None):
        return p.op(name, [x], [row(x[2], mapping or x[1])], attrs, stage)[0]

    def norm(x, prefix, stage):
        w = param(f"{prefix}.w", [h], [-1], stage)
        if m["gpt"]:
            bias = param(f"{prefix}.b", [h], [-1], stage)
            y, _, _ = p.op("pd_op.layer_norm", [x, w, bias],
                           [row(x[2], act(-1, -1)), row([b * seq], [-1]), row([b * seq], [-1])],
                           {"begin_norm_axis": "(Int32)2", "epsilon": "(Float)1e-05"}, stage)
            return y
        y, _, _ = p.op("pd_op.rms_norm", [x, None, None, w, None],
                       [row(x[2], act(-1, -1)), None, row([b, seq], act(-1))],
                       {"begin_norm_axis": "(Int32)2", "epsilon": "(Float)1e-06", "quant_max_bound": "(Float)0",
                        "quant_min_bound": "(Float)0", "quant_round_type": "(Int32)0", "quant_scale": "(Float)-1"},
                       stage)
        return y

    def attention(x, layer, stage):
        y = norm(x, f"layers.{layer}.input_norm", stage)
        heads = []
        shape4 = int_array([b, seq, nh, hd], stage)
        for proj in ("q", "k", "v"):
            w = param(f"layers.{layer}.{proj}_proj.w", [h, nh * hd], [-1, T], stage)
            t = matmul(y, w, act(-1, T), stage=stage)
            t = p.op("pd_op.reshape", [t, shape4], [row([b, seq, nh, hd], act(-1, T, -1))], {}, stage)[0]
            t = p.op("pd_op.transpose", [t], [row([b, nh, seq, hd], act(T, -1, -1))],
                     {"perm": "[(Int32)0,(Int32)2,(Int32)1,(Int32)3]"}, stage)[0]
            heads.append(t)
        q, k, v = heads
        s = matmul(q, k, act(T, -1, -1), transpose_y=True, stage=stage, out_shape=[b, nh, seq, seq])
        s = unary("pd_op.scale", s, {"bias": "(Float)0", "bias_after_scale": "true",
                                     "scale": f"(Float){1 / math.sqrt(hd):.6g}"}, stage)
        s = unary("pd_op.softmax", s, {"axis": "(Int32)-1"}, stage)
        o = matmul(s, v, act(T, -1, -1), stage=stage, out_shape=[b, nh, seq, hd])
        o = p.op("pd_op.transpose", [o], [row([b, seq, nh, hd], act(-1, T, -1))],
                 {"perm": "[(Int32)0,(Int32)2,(Int32)1,(Int32)3]"}, stage)[0]
        o = p.op("pd_op.reshape", [o, int_array([b, seq, nh * hd], stage)], [row([b, seq, nh * hd], act(-1, T))], {},
                 stage)[0]
        wo = param(f"layers.{layer}.o_proj.w", [nh * hd, h], [T, -1], stage)
        o = matmul(o, wo, act(-1, -1), partial=T, stage=stage)
        return p.op("pd_op.add", [x, o], [row(x[2], act(-1, -1))], {}, stage)[0]

    def mlp(x, layer, stage):
        y = norm(x, f"layers.{layer}.post_norm", stage)
        up = matmul(y, param(f"layers.{layer}.up_proj.w", [h, ffn], [-1, T], stage), act(-1, T), stage=stage)
        if m["gpt"]:
            hidden = unary("pd_op.gelu", up, {"approximate": "false"}, stage)
        else:
            gate = matmul(y, param(f"layers.{layer}.gate_proj.w", [h, ffn], [-1, T], stage), act(-1, T),
                          stage=stage)
            gate = unary("pd_op.silu", gate, {}, stage)
            hidden = p.op("pd_op.multiply", [gate, up], [row(up[2], up[1])], {}, stage)[0]
        down = param(f"layers.{layer}.down_proj.w", [ffn, h], [T, -1], stage)
        o = matmul(hidden, down, act(-1, -1), partial=T, stage=stage)
        return p.op("pd_op.add", [x, o], [row(x[2], act(-1, -1))], {}, stage)[0]

    ids = data("input_ids", [b, seq], act(-1), "i64", "int64")
    labels = data("labels", [b, seq, 1], act(-1, -1), "i64", "int64", pp - 1)
    table = param("embed_tokens.w", [vocab, h], [-1, -1], 0)
    x = p.op("pd_op.embedding", [ids, table], [row([b, seq, h], act(-1, -1))],
             {"padding_idx": "(Int64)-1", "sparse": "false"}, 0)[0]
    per_stage = max(1, layers // pp)
    for layer in range(layers):
        stage = min(pp - 1, layer // per_stage)
        x = attention(x, layer, stage)
        x = mlp(x, layer, stage)
    last = pp - 1
    x = norm(x, "final_norm", last)
    logits = matmul(x, param("lm_head.w", [h, vocab], [-1, -1], last), act(-1, -1), stage=last)
    _, loss = p.op("pd_op.cross_entropy_with_softmax", [logits, labels],
                   [row(logits[2], logits[1]), row([b, seq, 1], act(-1, -1))],
                   {"axis": "(Int32)-1", "ignore_index": "(Int32)-100", "numeric_stable_mode": "true",
                    "soft_label": "false", "use_softmax": "true"}, last)
    mean = p.op("pd_op.mean", [loss], [row([], [])], {"axis": "(pd_op.IntArray)[]", "keepdim": "false"}, last,
                declare={0: [-1, -1, -1]})[0]  # over the whole batch: gathered first
    p.lines.append(f'    () = "builtin.shadow_output" ({mean[0]}) {{op_dist_attr:{{mesh:{{shape:'
                   f'{dims_text(p.meshes[last][0])},process_ids:{dims_text(p.meshes[last][1])}}},operand(0):'
                   f'{{dims_maping:[]}}}},output_name:"loss_0"}} : ({p.tensor([], [], "f32", None, last)}) -> ')
    return "{\n" + "\n".join(p.lines) + "\n}\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(MODELS), default="llama7b")
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--tp", type=int, default=2, help="tensor-parallel ranks")
    parser.add_argument("--dp", type=int, default=1, help="data-parallel ranks (batch split over them)")
    parser.add_argument("--pp", type=int, default=1, help="pipeline stages (layers split over meshes)")
    parser.add_argument("--batch", type=int, default=1, help="sequences per data-parallel rank")
    args = parser.parse_args()
    sys.stdout.write(build(args.model, args.layers, args.tp, args.dp, args.pp, args.batch))


if __name__ == "__main__":
    main()
