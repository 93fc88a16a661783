#!/usr/bin/env python3
"""Writes a real-sized tensor-parallel (and pipeline) program in Paddle's PIR
text, the way a dump of a semi-auto-parallel training step reads before the
partition pass: Llama-style blocks (RMS norm, attention, SwiGLU MLP) or
GPT-style blocks (layer norm, attention, GELU MLP), column-parallel q/k/v and
up projections, row-parallel o and down projections (partial sums), a
replicated LM head and cross entropy; then the backward pass (each op's
grad, Paddle's *_grad ops, grads of a value summed) and one AdamW step per
parameter, unless --forward-only.

  real_model.py --model llama7b --layers 32 --tp 2            > llama7b_tp2.ir
  real_model.py --model llama7b --layers 32 --tp 2 --dp 2     > llama7b_tp2_dp2.ir
  real_model.py --model gpt --layers 24 --tp 2 --pp 2         > gpt_tp2_pp2.ir

Then `reshardctl validate --apply FILE` (the partition pass inserts the
reshards: partial sums to replicas, and the pipeline stage boundary; the
default --shrink=auto shrinks the program until it fits validate's budget).
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

    def op(self, name, operands, results, attrs, stage, declare=None, keep_partial=False):
        """results: list of (shape, mapping, dtype, partial) or None; returns the values.
        keep_partial: the op takes its operands' partial sums as they are (a sum of them)."""
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
            wanted = (v if keep_partial else self.declared(v, stage)) if v is not None else None
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


class Tape:
    """The forward ops' grads, emitted in reverse as Paddle's backward pass
    writes them (paddle/phi/ops/yaml/backward.yaml's operand orders), and
    each value's grad summed where it has several uses."""

    def __init__(self, p):
        self.p = p
        self.steps = []
        self.grads = {}

    def record(self, step):
        self.steps.append(step)

    def grad(self, value):
        return self.grads.get(value[0])

    def accumulate(self, value, g, stage):
        if g is None:
            return
        old = self.grads.get(value[0])
        if old is None:
            self.grads[value[0]] = g
            return
        partial = old[3] if old[3] == g[3] else None  # a sum of partial sums over one mesh dim is one
        self.grads[value[0]] = self.p.op("pd_op.add", [old, g], [row(value[2], value[1], "f32", partial)], {},
                                         stage, keep_partial=partial is not None)[0]

    def run(self):
        for step in reversed(self.steps):
            step()


def build(model, layers, tp, dp, pp, batch, backward=True, mislabel=False):
    m = MODELS[model]
    h, nh, hd, ffn, vocab, seq = m["hidden"], m["heads"], m["head_dim"], m["ffn"], m["vocab"], m["seq"]
    p = Program(tp, dp, pp)
    tape = Tape(p)
    b = batch * dp
    T = p.tp_dim
    D = p.dp_dim if dp > 1 else -1
    DP = p.dp_dim if dp > 1 else None  # a weight's grad sums over the batch: partial over data parallel
    params = []  # (value, stage), for the optimizer
    wrong = [mislabel]  # one wrong annotation still to write (the tests' hook)

    def act(*rest):  # an activation's mapping: batch over data parallel
        return [D] + list(rest)

    def like(v, partial=None):  # a grad's row: shaped and laid out as its value
        return row(v[2], v[1], "f32", partial)

    def data(name, shape, mapping, dtype, dtype_name, stage=0):
        return p.op("pd_op.data", [], [row(shape, mapping, dtype)],
                    {"dtype": f"(pd_op.DataType){dtype_name}", "name": f'"{name}"',
                     "place": "(pd_op.Place)Place(undefined:0)", "shape": "(pd_op.IntArray)" + dims_text(shape)}, stage)[0]

    def state(name, shape, mapping, stage):
        return p.op("builtin.parameter", [], [row(shape, mapping)],
                    {"is_distributed": "[false]", "is_parameter": "[true]", "need_clip": "[true]",
                     "parameter_name": f'"{name}"', "persistable": "[true]", "trainable": "[true]"}, stage)[0]

    def param(name, shape, mapping, stage):
        w = state(name, shape, mapping, stage)
        params.append((w, stage, name))
        return w

    def matmul(x, w, out_mapping, partial=None, transpose_y=False, stage=0, out_shape=None):
        shape = out_shape or (x[2][:-1] + [w[2][0] if transpose_y else w[2][-1]])
        attrs = {"transpose_x": "false", "transpose_y": "true" if transpose_y else "false"}
        out = p.op("pd_op.matmul", [x, w], [row(shape, out_mapping, "f32", partial)], attrs, stage)[0]

        def grad():
            g = tape.grad(out)
            if g is None:
                return
            # x_grad = g·wᵀ sums over out's last dim: partial where that dim is split; a weight's
            # grad xᵀ·g sums over the batch: partial over data parallel (batched operands do not).
            x_partial = out_mapping[-1] if out_mapping[-1] >= 0 else None
            if x_partial is not None and wrong[0]:  # claims replicated what is a partial sum
                x_partial, wrong[0] = None, False
            w_partial = DP if len(w[2]) == 2 and len(x[2]) > 2 else None
            gx, gw = p.op("pd_op.matmul_grad", [x, w, g], [like(x, x_partial), like(w, w_partial)], attrs, stage)
            tape.accumulate(x, gx, stage)
            tape.accumulate(w, gw, stage)
        tape.record(grad)
        return out

    def int_array(values, stage):
        return p.op("pd_op.full_int_array", [], [row([len(values)], [-1], "i64")],
                    {"dtype": "(pd_op.DataType)int64", "place": "(pd_op.Place)Place(cpu)",
                     "value": "[" + ",".join(f"(Int64){v}" for v in values) + "]"}, stage)[0]

    def unary(name, x, attrs, stage, grad_name=None, grad_operands=None):
        out = p.op(name, [x], [row(x[2], x[1])], attrs, stage)[0]

        def grad():
            g = tape.grad(out)
            if g is not None:
                operands = [{"x": x, "out": out}[k] for k in grad_operands] + [g]
                grad_attrs = attrs if grad_name != "pd_op.scale" else dict(attrs, bias="(Float)0")
                tape.accumulate(x, p.op(grad_name, operands, [like(x)], grad_attrs, stage)[0], stage)
        tape.record(grad)
        return out

    def reshape(x, shape, mapping, stage):
        out = p.op("pd_op.reshape", [x, int_array(shape, stage)], [row(shape, mapping)], {}, stage)[0]

        def grad():
            g = tape.grad(out)
            if g is not None:
                tape.accumulate(x, p.op("pd_op.reshape_grad", [x, g], [like(x)], {}, stage)[0], stage)
        tape.record(grad)
        return out

    def transpose(x, shape, mapping, stage):
        attrs = {"perm": "[(Int32)0,(Int32)2,(Int32)1,(Int32)3]"}
        out = p.op("pd_op.transpose", [x], [row(shape, mapping)], attrs, stage)[0]

        def grad():
            g = tape.grad(out)
            if g is not None:
                tape.accumulate(x, p.op("pd_op.transpose_grad", [g], [like(x)], attrs, stage)[0], stage)
        tape.record(grad)
        return out

    def binary(name, x, y, stage):
        out = p.op(name, [x, y], [row(x[2], x[1])], {}, stage)[0]

        def grad():
            g = tape.grad(out)
            if g is not None:
                gx, gy = p.op(name + "_grad", [x, y, g], [like(x), like(y)], {"axis": "(Int32)-1"}, stage)
                tape.accumulate(x, gx, stage)
                tape.accumulate(y, gy, stage)
        tape.record(grad)
        return out

    def norm(x, prefix, stage):
        w = param(f"{prefix}.w", [h], [-1], stage)
        if m["gpt"]:
            bias = param(f"{prefix}.b", [h], [-1], stage)
            attrs = {"begin_norm_axis": "(Int32)2", "epsilon": "(Float)1e-05"}
            y, mean, var = p.op("pd_op.layer_norm", [x, w, bias],
                                [row(x[2], act(-1, -1)), row([b * seq], [D]), row([b * seq], [D])], attrs, stage)

            def grad():
                g = tape.grad(y)
                if g is not None:
                    gx, gw, gb = p.op("pd_op.layer_norm_grad", [x, w, bias, mean, var, g],
                                      [like(x), like(w, DP), like(bias, DP)], attrs, stage)
                    tape.accumulate(x, gx, stage)
                    tape.accumulate(w, gw, stage)
                    tape.accumulate(bias, gb, stage)
            tape.record(grad)
            return y
        attrs = {"begin_norm_axis": "(Int32)2", "epsilon": "(Float)1e-06", "quant_max_bound": "(Float)0",
                 "quant_min_bound": "(Float)0", "quant_round_type": "(Int32)0", "quant_scale": "(Float)-1"}
        y, _, inv_var = p.op("pd_op.rms_norm", [x, None, None, w, None],
                             [row(x[2], act(-1, -1)), None, row([b, seq], act(-1))], attrs, stage)

        def grad():
            g = tape.grad(y)
            if g is not None:
                gx, gw, _ = p.op("pd_op.rms_norm_grad", [x, None, None, w, None, inv_var, g],
                                 [like(x), like(w, DP), None], attrs, stage)
                tape.accumulate(x, gx, stage)
                tape.accumulate(w, gw, stage)
        tape.record(grad)
        return y

    def attention(x, layer, stage):
        y = norm(x, f"layers.{layer}.input_norm", stage)
        heads = []
        for proj in ("q", "k", "v"):
            w = param(f"layers.{layer}.{proj}_proj.w", [h, nh * hd], [-1, T], stage)
            t = matmul(y, w, act(-1, T), stage=stage)
            t = reshape(t, [b, seq, nh, hd], act(-1, T, -1), stage)
            heads.append(transpose(t, [b, nh, seq, hd], act(T, -1, -1), stage))
        q, k, v = heads
        s = matmul(q, k, act(T, -1, -1), transpose_y=True, stage=stage, out_shape=[b, nh, seq, seq])
        s = unary("pd_op.scale", s, {"bias": "(Float)0", "bias_after_scale": "true",
                                     "scale": f"(Float){1 / math.sqrt(hd):.6g}"}, stage, "pd_op.scale", [])
        s = unary("pd_op.softmax", s, {"axis": "(Int32)-1"}, stage, "pd_op.softmax_grad", ["out"])
        o = matmul(s, v, act(T, -1, -1), stage=stage, out_shape=[b, nh, seq, hd])
        o = transpose(o, [b, seq, nh, hd], act(-1, T, -1), stage)
        o = reshape(o, [b, seq, nh * hd], act(-1, T), stage)
        wo = param(f"layers.{layer}.o_proj.w", [nh * hd, h], [T, -1], stage)
        o = matmul(o, wo, act(-1, -1), partial=T, stage=stage)
        return binary("pd_op.add", x, o, stage)

    def mlp(x, layer, stage):
        y = norm(x, f"layers.{layer}.post_norm", stage)
        up = matmul(y, param(f"layers.{layer}.up_proj.w", [h, ffn], [-1, T], stage), act(-1, T), stage=stage)
        if m["gpt"]:
            hidden = unary("pd_op.gelu", up, {"approximate": "false"}, stage, "pd_op.gelu_grad", ["x"])
        else:
            gate = matmul(y, param(f"layers.{layer}.gate_proj.w", [h, ffn], [-1, T], stage), act(-1, T),
                          stage=stage)
            gate = unary("pd_op.silu", gate, {}, stage, "pd_op.silu_grad", ["x", "out"])
            hidden = binary("pd_op.multiply", gate, up, stage)
        down = param(f"layers.{layer}.down_proj.w", [ffn, h], [T, -1], stage)
        o = matmul(hidden, down, act(-1, -1), partial=T, stage=stage)
        return binary("pd_op.add", x, o, stage)

    ids = data("input_ids", [b, seq], act(-1), "i64", "int64")
    labels = data("labels", [b, seq, 1], act(-1, -1), "i64", "int64", pp - 1)
    table = param("embed_tokens.w", [vocab, h], [-1, -1], 0)
    embed_attrs = {"padding_idx": "(Int64)-1", "sparse": "false"}
    x = p.op("pd_op.embedding", [ids, table], [row([b, seq, h], act(-1, -1))], embed_attrs, 0)[0]
    embedded = x

    def embedding_grad():
        g = tape.grad(embedded)
        if g is not None:
            tape.accumulate(table, p.op("pd_op.embedding_grad", [ids, table, g], [like(table, DP)], embed_attrs, 0)[0], 0)
    tape.record(embedding_grad)
    per_stage = max(1, layers // pp)
    for layer in range(layers):
        stage = min(pp - 1, layer // per_stage)
        x = attention(x, layer, stage)
        x = mlp(x, layer, stage)
    last = pp - 1
    x = norm(x, "final_norm", last)
    logits = matmul(x, param("lm_head.w", [h, vocab], [-1, -1], last), act(-1, -1), stage=last)
    ce_attrs = {"axis": "(Int32)-1", "ignore_index": "(Int32)-100", "numeric_stable_mode": "true",
                "soft_label": "false", "use_softmax": "true"}
    softmax, loss = p.op("pd_op.cross_entropy_with_softmax", [logits, labels],
                         [row(logits[2], logits[1]), row([b, seq, 1], act(-1, -1))], ce_attrs, last)
    gathered = [-1, -1, -1]  # the mean is over the whole batch: gathered first
    mean_attrs = {"axis": "(pd_op.IntArray)[]", "keepdim": "false"}
    mean = p.op("pd_op.mean", [loss], [row([], [])], mean_attrs, last, declare={0: gathered})[0]
    p.lines.append(f'    () = "builtin.shadow_output" ({mean[0]}) {{op_dist_attr:{{mesh:{{shape:'
                   f'{dims_text(p.meshes[last][0])},process_ids:{dims_text(p.meshes[last][1])}}},operand(0):'
                   f'{{dims_maping:[]}}}},output_name:"loss_0"}} : ({p.tensor([], [], "f32", None, last)}) -> ')
    if backward:
        one = p.op("pd_op.full", [], [row([1], [-1])],
                   {"dtype": "(pd_op.DataType)float32", "place": "(pd_op.Place)Place(cpu)",
                    "shape": "(pd_op.IntArray)[1]", "value": "(Float)1"}, last)[0]
        seed = p.op("pd_op.full_like", [mean, one], [row([], [])],
                    {"dtype": "(pd_op.DataType)float32", "place": "(pd_op.Place)Place(undefined:0)"}, last)[0]
        loss_grad = p.op("pd_op.mean_grad", [loss, seed], [row(loss[2], gathered)], dict(mean_attrs, reduce_all="false"),
                         last, declare={0: gathered})[0]
        tape.grads[logits[0]] = p.op("pd_op.cross_entropy_with_softmax_grad", [labels, softmax, loss_grad],
                                     [like(logits)], ce_attrs, last, declare={2: loss[1]})[0]
        tape.run()
        optimizer(p, params, tape)
    return "{\n" + "\n".join(p.lines) + "\n}\n"


def optimizer(p, params, tape):
    """One AdamW step per parameter (pd_op.adamw_, ops.yaml's operand order):
    its moments and beta powers are persistable state laid out as it is."""
    rates = {}
    for w, stage, name in params:
        g = tape.grad(w)
        if g is None:
            continue
        if stage not in rates:
            rates[stage] = p.op("pd_op.data", [], [row([], [])],
                                {"dtype": "(pd_op.DataType)float32", "name": f'"learning_rate_{stage}"',
                                 "place": "(pd_op.Place)Place(undefined:0)", "shape": "(pd_op.IntArray)[]"}, stage)[0]
        states = []
        for suffix, shape, mapping in (("moment1_0", w[2], w[1]), ("moment2_0", w[2], w[1]),
                                       ("beta1_pow_acc_0", [1], [-1]), ("beta2_pow_acc_0", [1], [-1])):
            states.append(p.op("builtin.parameter", [], [row(shape, mapping)],
                               {"is_distributed": "[false]", "is_parameter": "[true]", "need_clip": "[true]",
                                "parameter_name": f'"{name}_{suffix}"', "persistable": "[true]",
                                "trainable": "[false]"}, stage)[0])
        m1, m2, b1, b2 = states
        p.op("pd_op.adamw_", [w, g, rates[stage], m1, m2, b1, b2, None, None],
             [row(w[2], w[1]), row(w[2], w[1]), row(w[2], w[1]), row([1], [-1]), row([1], [-1]), None],
             {"beta1": "(Float)0.9", "beta2": "(Float)0.999", "coeff": "(Float)0.01", "epsilon": "(Float)1e-08",
              "lazy_mode": "false", "lr_ratio": "(Float)1", "min_row_size_to_use_multithread": "(Int64)1000",
              "multi_precision": "false", "use_global_beta_pow": "false", "with_decay": "true"}, stage)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", choices=sorted(MODELS), default="llama7b")
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--tp", type=int, default=2, help="tensor-parallel ranks")
    parser.add_argument("--dp", type=int, default=1, help="data-parallel ranks (batch split over them)")
    parser.add_argument("--pp", type=int, default=1, help="pipeline stages (layers split over meshes)")
    parser.add_argument("--batch", type=int, default=1, help="sequences per data-parallel rank")
    parser.add_argument("--forward-only", action="store_true", help="the forward pass and loss alone (no backward, "
                        "no optimizer)")
    parser.add_argument("--mislabel", action="store_true",
                        help="for tests: the first matmul_grad whose x_grad is a partial sum claims it replicated "
                        "(an annotation validate must find wrong)")
    args = parser.parse_args()
    sys.stdout.write(build(args.model, args.layers, args.tp, args.dp, args.pp, args.batch, not args.forward_only,
                           args.mislabel))


if __name__ == "__main__":
    main()
