#include "server/app/gm_token_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "server/app/secrets.h"

namespace adj {

namespace {

bool token_shaped(const std::string& t) {
  if (t.size() < 16 || t.size() > 128) return false;
  for (char c : t)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
          c == '_'))
      return false;
  return true;
}

Status io_error(const std::string& what, const std::string& path) {
  return Status::Internal(what + " " + path + ": " + std::strerror(errno));
}

}  // namespace

std::string gm_token_path(const std::string& db_path) { return db_path + ".gm-token"; }

Result<std::string> load_or_create_gm_token(const std::string& db_path, bool* created) {
  const std::string path = gm_token_path(db_path);
  if (created) *created = false;
  const int in = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (in >= 0) {
    struct stat st {};
    if (::fstat(in, &st) != 0) {
      ::close(in);
      return io_error("cannot read", path);
    }
    if ((st.st_mode & 077) != 0) {
      ::close(in);
      return Status::PermissionDenied(path +
                                      " is readable by other users; make it private (chmod 600 " +
                                      path + ") or delete it for a new token");
    }
    char buf[256];
    const ssize_t n = ::read(in, buf, sizeof buf);
    ::close(in);
    if (n < 0) return io_error("cannot read", path);
    std::string token(buf, static_cast<std::size_t>(n));
    while (!token.empty() && (token.back() == '\n' || token.back() == '\r' || token.back() == ' '))
      token.pop_back();
    if (token_shaped(token)) return token;
    if (::unlink(path.c_str()) != 0) return io_error("cannot replace", path);
  } else if (errno != ENOENT) {
    return io_error("cannot open", path);
  }
  const std::string token = new_token();
  const int out = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
  if (out < 0) return io_error("cannot create", path);
  const std::string line = token + "\n";
  const bool ok = ::write(out, line.data(), line.size()) == static_cast<ssize_t>(line.size()) &&
                  ::fsync(out) == 0;
  ::close(out);
  if (!ok) return io_error("cannot write", path);
  if (created) *created = true;
  return token;
}

}  // namespace adj
