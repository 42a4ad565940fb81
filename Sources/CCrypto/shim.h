#include <openssl/evp.h>
#include <openssl/crypto.h>
#include <openssl/rand.h>

/* SHA-1 of `length` bytes into `digest` (20 bytes): the WebSocket handshake's Sec-WebSocket-Accept (RFC 6455
 * 4.2.2), not a security use. 1 on success. EVP_sha1 is a function, but the one-shot EVP_Digest call keeps the
 * Swift side to one line. */
static inline int audiograph_sha1(const void *data, size_t length, unsigned char *digest) {
    unsigned int size = 0;
    return EVP_Digest(data, length, digest, &size, EVP_sha1(), NULL) == 1 && size == 20;
}
