# The files a run of reshardctl enters, in the order it first enters them
# (src/README.md, "The path of apply"). Run by gdb on a binary built with -g:
#
#   gdb -q -batch -x scripts/trace-files.py --args BUILD/reshardctl apply samples/seed_mlp_before.ir -o out.ir
#
# A breakpoint goes on `main` and on every out-of-line function of ours (every
# function symbol the binary defines in namespace reshardctl, as `rbreak
# ^reshardctl::` finds them, but by address, so that inlined copies are not
# counted); each is disabled when first hit, and the file that defines the
# function (its debug info) is recorded. It prints the files in order and how
# many times the run leaves src/tool/ for another stage: a first entry outside
# tool/ right after one inside it (a function of a tool/ header counts as
# inside).
import re

import gdb

gdb.execute("set pagination off")
gdb.execute("set confirm off")
gdb.execute("set breakpoint pending off")

def our_file(path):
    """src/... or grammar/... relative name of `path`, or None if not ours."""
    for mark in ("/src/", "/grammar/"):
        at = path.rfind(mark)
        if at >= 0:
            return path[at + 1:] if mark == "/grammar/" else path[at + len(mark):]
    return None


# Mangled names of reshardctl::..., members (const, ref-qualified) and the
# local entities of its functions (lambdas) too, as the demangled names
# `rbreak ^reshardctl::` matches.
OURS = re.compile(r"^_ZZ?N[KVRO]*10reshardctl")


def function_addresses():
    """Entry addresses of main and of every function symbol in reshardctl::."""
    addresses = {}
    # The ELF symbols give the out-of-line copies: a minimal symbol each,
    # at its address in the started process (a PIE is relocated).
    nm = gdb.execute("maint print msymbols -objfile " + gdb.objfiles()[0].filename, to_string=True)
    for line in nm.splitlines():
        m = re.match(r"^\[\s*\d+\]\s+[Tt]\s+(0x[0-9a-f]+)\s+(\S+)", line)
        if not m:
            continue
        address, mangled = int(m.group(1), 16), m.group(2)
        if ".cold" in mangled:  # a split-off cold part, not an entry
            continue
        if mangled == "main" or OURS.match(mangled):
            addresses[address] = mangled
    return addresses


class FirstEntry(gdb.Breakpoint):
    hits = []

    def __init__(self, address, symbol):
        super().__init__("*0x%x" % address, internal=True)
        self.address = address
        self.symbol = symbol

    def stop(self):
        # The function's outermost block (its superblock is the file's static
        # block): inner blocks may be functions inlined into it.
        block = gdb.block_for_pc(self.address)
        while block is not None and block.superblock is not None and not block.superblock.is_static:
            block = block.superblock
        if block is not None and block.function is None:
            block = None
        path = block.function.symtab.fullname() if block is not None else "?"  # no debug info
        name = block.function.print_name if block is not None else self.symbol
        FirstEntry.hits.append((our_file(path) or path, name))
        self.enabled = False
        return False


gdb.execute("starti")
addresses = function_addresses()
gdb.execute("set breakpoint always-inserted on")
for address, symbol in addresses.items():
    FirstEntry(address, symbol)
gdb.execute("continue")

files, leaves, previous = [], 0, None
for path, _name in FirstEntry.hits:
    if path not in files:
        files.append(path)
    in_tool = path.startswith("tool/")
    if previous is not None and previous.startswith("tool/") and not in_tool:
        leaves += 1
    previous = path
print("functions first entered: %d" % len(FirstEntry.hits))
for path, name in FirstEntry.hits:
    print("  %-36s %s" % (path, name))
units = [f for f in files if not f.endswith(".h")]  # a header's functions are inlined elsewhere, or weak copies
print("files: %d, and %d headers whose functions were entered" % (len(units), len(files) - len(units)))
print(" -> ".join(units))
print("headers: " + ", ".join(f for f in files if f.endswith(".h")))
print("leaves tool/: %d" % leaves)
