// matmul and matmul_grad (ops.yaml: matmul(x, y, bool transpose_x, bool
// transpose_y); backward.yaml: matmul_grad(x, y, out_grad, transpose_x,
// transpose_y) -> x_grad, y_grad), with batch dims broadcasting as numpy's
// matmul and 1-D operands promoted and squeezed back. The products run on
// Eigen in double.
#include <Eigen/Core>

#include <fmt/format.h>

#include "interp/kernels/kernel_rows.h"

namespace reshardctl {

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstMap = Eigen::Map<const RowMatrix>;
using Map = Eigen::Map<RowMatrix>;

// A matrix operand: its batch dims and its [rows, cols] as stored.
struct Batched {
  Shape batch;
  int64_t rows = 1;
  int64_t cols = 1;
};

Batched asMatrices(const Shape& shape) {
  if (shape.empty()) throw KernelError("matmul of a 0-D tensor");
  Batched b;
  b.cols = shape.back();
  b.rows = shape.size() >= 2 ? shape[shape.size() - 2] : 1;
  if (shape.size() > 2) b.batch.assign(shape.begin(), shape.end() - 2);
  return b;
}

// C = op(A) * op(B) for every (broadcast) batch; `a`, `b` are stored
// row-major with their own shapes. The result has shape batch + [m, n].
Tensor batchedProduct(const Tensor& a, bool transA, const Tensor& b, bool transB) {
  const Batched ma = asMatrices(a.shape);
  const Batched mb = asMatrices(b.shape);
  const int64_t m = transA ? ma.cols : ma.rows;
  const int64_t k = transA ? ma.rows : ma.cols;
  const int64_t kb = transB ? mb.cols : mb.rows;
  const int64_t n = transB ? mb.rows : mb.cols;
  if (k != kb)
    throw KernelError(fmt::format("matmul of {} and {}: inner dims {} and {} differ", shapeText(a.shape),
                                  shapeText(b.shape), k, kb));
  const Shape batch = broadcastShapes(ma.batch, mb.batch);
  const std::vector<int64_t> ia = broadcastOffsets(ma.batch, batch);
  const std::vector<int64_t> ib = broadcastOffsets(mb.batch, batch);
  Shape shape = batch;
  shape.push_back(m);
  shape.push_back(n);
  Tensor out = Tensor::filled(shape, 0.0, a.dtype);
  for (size_t i = 0; i < ia.size(); ++i) {
    ConstMap A(a.data.data() + ia[i] * ma.rows * ma.cols, ma.rows, ma.cols);
    ConstMap B(b.data.data() + ib[i] * mb.rows * mb.cols, mb.rows, mb.cols);
    Map C(out.data.data() + static_cast<int64_t>(i) * m * n, m, n);
    if (transA && transB) C.noalias() = A.transpose() * B.transpose();
    else if (transA) C.noalias() = A.transpose() * B;
    else if (transB) C.noalias() = A * B.transpose();
    else C.noalias() = A * B;
  }
  return out;
}

// 1-D operands as matmul sees them: x [k] -> [1, k], y [k] -> [k, 1].
Tensor promoted(const Tensor& t, bool isX) {
  if (t.rank() != 1) return t;
  return reshaped(t, isX ? Shape{1, t.shape[0]} : Shape{t.shape[0], 1});
}

// The product's shape with the promoted dims of 1-D operands removed.
Shape squeezedShape(Shape shape, bool xWas1D, bool yWas1D) {
  if (yWas1D) shape.pop_back();
  if (xWas1D) shape.erase(shape.end() - (yWas1D ? 1 : 2));
  return shape;
}

void matmul(KernelContext& c) {
  const Tensor& x = c.in(0);
  const Tensor& y = c.in(1);
  const bool tx = c.attrs().boolean("transpose_x", false);
  const bool ty = c.attrs().boolean("transpose_y", false);
  Tensor out = batchedProduct(promoted(x, true), tx, promoted(y, false), ty);
  out.shape = squeezedShape(out.shape, x.rank() == 1, y.rank() == 1);
  c.setOut(0, std::move(out));
}

// With C = op(X) op(Y) and G = dL/dC (all promoted to >= 2-D):
//   tx=F ty=F: dX = G Y^T,    dY = X^T G
//   tx=F ty=T: dX = G Y,      dY = G^T X
//   tx=T ty=F: dX = Y G^T,    dY = X G
//   tx=T ty=T: dX = Y^T G^T,  dY = G^T X^T
// each summed over the batch dims its operand was broadcast along.
void matmulGrad(KernelContext& c) {
  const Tensor& x0 = c.in(0);
  const Tensor& y0 = c.in(1);
  const bool tx = c.attrs().boolean("transpose_x", false);
  const bool ty = c.attrs().boolean("transpose_y", false);
  const Tensor x = promoted(x0, true);
  const Tensor y = promoted(y0, false);
  Shape gShape = c.in(2).shape;
  if (x0.rank() == 1) gShape.insert(gShape.end() - (y0.rank() == 1 ? 0 : 1), 1);
  if (y0.rank() == 1) gShape.push_back(1);
  const Tensor g = reshaped(c.in(2), gShape);

  Tensor dx = !tx ? batchedProduct(g, false, y, !ty) : batchedProduct(y, ty, g, true);
  Tensor dy = !ty ? batchedProduct(x, !tx, g, false) : batchedProduct(g, true, x, tx);
  Shape xBatchShape = x.shape;
  Shape yBatchShape = y.shape;
  c.setOut(0, reshaped(reduceToShape(dx, xBatchShape), x0.shape));
  if (c.numResults() > 1) c.setOut(1, reshaped(reduceToShape(dy, yBatchShape), y0.shape));
}

constexpr KernelRow kRows[] = {
    {"pd_op.matmul", matmul},
    {"pd_op.matmul_grad", matmulGrad},
};

}  // namespace

std::span<const KernelRow> linalgKernels() { return kRows; }

}  // namespace reshardctl
