// reshardctl's entry point; everything else lives in the library (src/).
#include "tool/cli.h"

int main(int argc, char** argv) { return reshardctl::runCli(argc, argv); }
