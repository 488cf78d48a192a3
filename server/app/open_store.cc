#include "server/app/open_store.h"

#include <spdlog/spdlog.h>

#include "server/app/secrets.h"

namespace adj {

Result<std::unique_ptr<Store>> open_store(const std::string& db, UnixTime now) {
  auto store = open_database(db);
  if (!store.ok()) return store;
  Result<int> hashed =
      (*store)->upgrade_credentials([](std::string_view secret) { return hash_secret(secret); },
                                    [](std::string_view token) { return hash_token(token); }, now);
  if (!hashed.ok())
    return Status(hashed.status().code(),
                  "database " + describe_database(db) + ": " + hashed.status().message());
  if (*hashed > 0)
    spdlog::info(
        "event=credentials_upgraded secrets_hashed={} detail=\"secrets and link tokens "
        "are now stored as hashes\"",
        *hashed);
  return store;
}

}  // namespace adj
