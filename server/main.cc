// adjutant: the one binary. Subcommands live in server/cli/; this is only the entry point.
#include "server/cli/cli.h"

int main(int argc, char** argv) { return adj::cli::run(argc, argv); }
