// The CUDA kernels of the GPU backend's local steps, behind a host API that the
// g++-compiled backend can call: a strided box copy (slice, concat, pad and
// unpad are all box copies, see box_copy.h), a fill with a raw bit pattern (the
// reduction identity, zero padding), and the two elementwise fix-ups reductions
// need (0/1 before ANY/ALL, the division after a SUM that stands for AVG).
// All launches are asynchronous on `stream`; the caller has set the device.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "exec/box_copy.h"
#include "exec/element_codec.h"

namespace reshardctl::gpu {

// `copy`'s offsets count from src and dst. Widens to 16-, 8- or 4-byte accesses
// where box_copy.h's widenBoxCopy allows.
cudaError_t launchBoxCopy(const BoxCopy& copy, const void* src, void* dst, cudaStream_t stream);

// Writes the low `elemBytes` bytes of `bits` into `count` elements.
cudaError_t launchFill(void* dst, int64_t count, int64_t elemBytes, uint64_t bits, cudaStream_t stream);

// x = (x != 0) ? 1 : 0
cudaError_t launchLogical(DeviceType type, void* data, int64_t count, cudaStream_t stream);

// x = x / divisor, rounded to the element type (integers truncate toward zero).
cudaError_t launchDivide(DeviceType type, void* data, int64_t count, int64_t divisor, cudaStream_t stream);

// x = x * factor, rounded to the element type (scale steps: floating point).
cudaError_t launchMultiply(DeviceType type, void* data, int64_t count, int64_t factor, cudaStream_t stream);

// The pairwise reductions (device_reduce.h's DeviceReduceOp but AVG, which
// has no pairwise form; that header reaches dist_attr.h, which nvcc does not
// compile, so the backend maps one to the other).
enum class CombineOp : uint8_t { Sum, Prod, Max, Min };

// dst[i] = op(dst[i], src[i]) for i < count, rounded to the element type:
// the parts a send_recv brings reduced on arrival (step_program.h's Combine).
cudaError_t launchCombine(DeviceType type, CombineOp op, void* dst, const void* src, int64_t count,
                          cudaStream_t stream);

}  // namespace reshardctl::gpu
