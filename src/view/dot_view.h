// `print --emit=dot`: the program as a Graphviz dataflow graph. Ops are
// nodes, values are edges labelled with their name, shape and placement;
// the ops of each mesh sit in one cluster, a region op's blocks in nested
// clusters. Reshards are orange-to-red boxes whose colour and border width
// follow their planned cost (the dearest of the program is the reddest and
// widest); a reshard between meshes sits between the clusters with a double
// border. With a focus, values crossing the cut end in plain-text stubs.
#pragma once

#include <string>

#include "view/op_selection.h"
#include "view/view_context.h"

namespace reshardctl {

std::string writeDot(ViewContext& view, const OpSelection& selection);

}  // namespace reshardctl
