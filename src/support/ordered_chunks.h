// Text made in pieces on several threads and written in order: piece i is
// produced into a buffer of its own by whichever thread is free, and the
// calling thread writes the buffers to the sink in index order, each as one
// block (a block as large as the sink's buffer goes out without a copy). At
// most jobs + 2 pieces are held at once, so the memory is bounded by the
// pieces' size, not the whole text's.
#pragma once

#include <cstddef>
#include <functional>

#include "support/output_sink.h"

namespace reshardctl {

// Appends piece `index` to `piece` (an empty memory sink). Called
// concurrently for different indexes: it must only read shared state.
using PieceProducer = std::function<void(size_t index, OutputSink& piece)>;

// Writes pieces 0..count-1 to `out` in order, made on `jobs` threads (1: on
// this thread, as a loop). An exception from a producer stops the others and
// is rethrown here; a failed write to `out` stops the work early.
void writePiecesInOrder(size_t count, unsigned jobs, OutputSink& out, const PieceProducer& produce);

}  // namespace reshardctl
