#include "server/http/tls_context.h"

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <vector>

namespace adj::http {

namespace {

namespace ssl = boost::asio::ssl;

// A file's bytes, wiped when dropped (the private key's buffer).
struct TlsFileBytes {
  std::vector<char> bytes;
  ~TlsFileBytes() {
    if (!bytes.empty()) OPENSSL_cleanse(bytes.data(), bytes.size());
  }
};

// Reads at most kTlsFileMaxBytes of `path` into one buffer allocated up front (no copies of the
// key are left behind by a growing buffer).
Status tls_read_file(const std::string& what, const std::string& path, TlsFileBytes& out) {
  if (path.empty()) return Status::InvalidArgument("no " + what + " file named");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f)
    return Status::IOError("cannot open the " + what + " file " + path + ": " +
                           std::strerror(errno));
  out.bytes.assign(kTlsFileMaxBytes + 1, '\0');
  const std::size_t n = std::fread(out.bytes.data(), 1, out.bytes.size(), f);
  const bool failed = std::ferror(f) != 0;
  std::fclose(f);
  if (failed) return Status::IOError("cannot read the " + what + " file " + path);
  if (n > kTlsFileMaxBytes)
    return Status::InvalidArgument("the " + what + " file " + path + " is larger than " +
                                   std::to_string(kTlsFileMaxBytes) + " bytes");
  if (n == 0) return Status::InvalidArgument("the " + what + " file " + path + " is empty");
  OPENSSL_cleanse(out.bytes.data() + n, out.bytes.size() - n);
  out.bytes.resize(n);
  return Status::Ok();
}

// OpenSSL's reasons (library and reason codes only: never data), emptying its error queue.
std::string tls_openssl_errors(const boost::system::error_code& ec) {
  std::string out = ec ? ec.message() : "";
  while (const unsigned long e = ERR_get_error()) {
    const char* r = ERR_reason_error_string(e);
    if (!r) continue;
    if (out.find(r) != std::string::npos) continue;
    if (!out.empty()) out += "; ";
    out += r;
  }
  return out.empty() ? "unknown OpenSSL error" : out;
}

std::string tls_bio_text(BIO* bio) {
  char* data = nullptr;
  const long n = BIO_get_mem_data(bio, &data);
  return n > 0 && data ? std::string(data, static_cast<std::size_t>(n)) : std::string();
}

void tls_describe(X509* cert, TlsServerContext& out) {
  if (!cert) return;
  if (BIO* bio = BIO_new(BIO_s_mem())) {
    X509_NAME_print_ex(bio, X509_get_subject_name(cert), 0, XN_FLAG_RFC2253);
    out.subject = tls_bio_text(bio);
    BIO_free(bio);
  }
  if (BIO* bio = BIO_new(BIO_s_mem())) {
    ASN1_TIME_print(bio, X509_get0_notAfter(cert));
    out.not_after = tls_bio_text(bio);
    BIO_free(bio);
  }
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (X509_digest(cert, EVP_sha256(), md, &len) == 1) {
    static const char* const kHex = "0123456789ABCDEF";
    for (unsigned int i = 0; i < len; ++i) {
      if (i) out.sha256_fingerprint += ':';
      out.sha256_fingerprint += kHex[md[i] >> 4];
      out.sha256_fingerprint += kHex[md[i] & 15];
    }
  }
}

}  // namespace

Result<TlsServerContext> load_tls_server_context(const std::string& cert_file,
                                                 const std::string& key_file) {
  ERR_clear_error();
  TlsFileBytes cert_pem, key_pem;
  ADJ_RETURN_IF_ERROR(tls_read_file("TLS certificate", cert_file, cert_pem));
  ADJ_RETURN_IF_ERROR(tls_read_file("TLS private key", key_file, key_pem));

  auto ctx = std::make_shared<ssl::context>(ssl::context::tls_server);
  ctx->set_options(ssl::context::default_workarounds | ssl::context::no_sslv2 |
                   ssl::context::no_sslv3 | ssl::context::no_tlsv1 | ssl::context::no_tlsv1_1 |
                   ssl::context::no_compression | ssl::context::single_dh_use);
  SSL_CTX* native = ctx->native_handle();
  SSL_CTX_set_min_proto_version(native, TLS1_2_VERSION);
  SSL_CTX_set_options(native, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
  SSL_CTX_set_dh_auto(native, 1);
  // An encrypted key fails to load instead of OpenSSL asking for a passphrase on the terminal.
  ctx->set_password_callback(
      [](std::size_t, ssl::context::password_purpose) { return std::string(); });

  boost::system::error_code ec;
  ctx->use_certificate_chain(boost::asio::buffer(cert_pem.bytes), ec);
  if (ec)
    return Status::InvalidArgument("the TLS certificate file " + cert_file +
                                   " holds no usable PEM certificate: " + tls_openssl_errors(ec));
  ctx->use_private_key(boost::asio::buffer(key_pem.bytes), ssl::context::pem, ec);
  const bool mismatch =
      ec && ERR_GET_REASON(static_cast<unsigned long>(ec.value())) == X509_R_KEY_VALUES_MISMATCH;
  if (ec && !mismatch)
    return Status::InvalidArgument(
        "the TLS private key file " + key_file +
        " holds no usable unencrypted PEM private key: " + tls_openssl_errors(ec));
  if (mismatch || SSL_CTX_check_private_key(native) != 1)
    return Status::InvalidArgument("the TLS private key file " + key_file +
                                   " does not match the certificate in " + cert_file + ": " +
                                   tls_openssl_errors(ec));
  ERR_clear_error();
  TlsServerContext out;
  out.context = std::move(ctx);
  tls_describe(SSL_CTX_get0_certificate(native), out);
  return out;
}

}  // namespace adj::http
