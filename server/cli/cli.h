// The `adjutant` command line. run() parses arguments and dispatches to commands.h.
// Exit codes: 0 success (an order file accepted, even with rejected lines); 2 an order file
// refused whole; 1 any other error (bad arguments, bad input, storage failure).
#pragma once

namespace adj::cli {

int run(int argc, char** argv);

}  // namespace adj::cli
