// TLS server contexts for the SMTP listener's STARTTLS (OpenSSL through Asio). Included only by
// the Asio TUs of server/http (the public headers stay free of Asio and OpenSSL types).
#pragma once

#include <boost/asio/ssl/context.hpp>
#include <memory>
#include <string>

#include "rules/core/status.h"

namespace adj::http {

// A loaded context and what the log says of it (never key material).
struct TlsServerContext {
  std::shared_ptr<boost::asio::ssl::context> context;
  std::string subject;             // the leaf certificate's subject, one line
  std::string not_after;           // its expiry, as OpenSSL prints it
  std::string sha256_fingerprint;  // of the leaf certificate, "AB:CD:..."
};

// Largest certificate chain or key file read (a PEM chain of a few certificates is ~10 KiB).
inline constexpr std::size_t kTlsFileMaxBytes = 1u << 20;

// Reads a PEM certificate chain (leaf first) and a PEM private key into a new server context:
// TLS 1.2 and later, no renegotiation, no compression. An encrypted key is refused (OpenSSL is
// never let to prompt for a passphrase). Fails, naming the file and the reason, when a file
// cannot be read, is larger than kTlsFileMaxBytes, does not parse, or the key does not match
// the certificate. The key's bytes are wiped from memory once loaded. Thread-safe.
Result<TlsServerContext> load_tls_server_context(const std::string& cert_file,
                                                 const std::string& key_file);

}  // namespace adj::http
