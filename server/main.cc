// adjutant: the one binary. Subcommands live in server/cli/; this is only the entry point.
#include <sys/stat.h>

#include "server/cli/cli.h"

int main(int argc, char** argv) {
  // Everything this process creates (database, WAL, backups, Maildir files) is the owner's only;
  // the places that create those files also set their modes explicitly.
  ::umask(077);
  return adj::cli::run(argc, argv);
}
