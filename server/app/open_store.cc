#include "server/app/open_store.h"

#include <spdlog/spdlog.h>

#include "server/app/secrets.h"

namespace adj {

Result<std::unique_ptr<SqliteStore>> open_store(const std::string& path, UnixTime now) {
  auto store = SqliteStore::open(path);
  if (!store.ok()) return store;
  Result<int> hashed =
      (*store)->upgrade_credentials([](std::string_view secret) { return hash_secret(secret); },
                                    [](std::string_view token) { return hash_token(token); }, now);
  if (!hashed.ok()) return hashed.status();
  if (*hashed > 0)
    spdlog::info(
        "event=credentials_upgraded secrets_hashed={} detail=\"secrets and link tokens "
        "are now stored as hashes\"",
        *hashed);
  return store;
}

}  // namespace adj
