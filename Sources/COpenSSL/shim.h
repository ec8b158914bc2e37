// OpenSSL hides several calls behind macros (BIO_get_mem_data, EVP_RSA_gen) and variadics: wrap them.
#include <openssl/bio.h>
#include <openssl/ecdsa.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/rsa.h>
#include <openssl/sha.h>
#include <openssl/x509.h>

static inline long copenssl_bio_get_mem_data(BIO *bio, char **data) { return BIO_get_mem_data(bio, data); }
static inline EVP_PKEY *copenssl_rsa_generate(unsigned int bits) { return EVP_RSA_gen(bits); }
static inline EVP_PKEY *copenssl_ec_p256_generate(void) { return EVP_EC_gen("P-256"); }

// TLS for the MongoDB wire protocol's server side: the protocol floor and the context's mode are macros.
#include <openssl/ssl.h>
static inline long copenssl_ctx_set_min_tls12(SSL_CTX *context) {
    return SSL_CTX_set_min_proto_version(context, TLS1_2_VERSION);
}
