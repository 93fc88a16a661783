// Memory a stage has freed handed back to the system. The allocator keeps
// what is freed for the next allocations; after a stage that freed much
// (a program's graph dropped before the text diff) that memory is still
// counted as the process's, beside what the next stage allocates.
#pragma once

namespace reshardctl {

// Returns the allocator's free memory to the system (glibc's malloc_trim, on
// every arena: whole free pages are given back). Costs a walk of the free
// lists, a few milliseconds; call it once after a stage, never per item.
void releaseFreedMemory();

}  // namespace reshardctl
