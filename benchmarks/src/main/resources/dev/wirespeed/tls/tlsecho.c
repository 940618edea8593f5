/*
 * TlsEngineCostPerRecord's C row: OpenSSL's own cost per record, with no Java in between. Two SSL
 * objects, a client and a server, over memory BIOs, as the native module's engine drives them: a
 * wrap is SSL_write then BIO_read of the write BIO, an unwrap BIO_write into the read BIO then SSL_read.
 */
#include <openssl/ssl.h>
#include <string.h>

static SSL *client;
static SSL *server;
static unsigned char net[20000];
static unsigned char plain[20000];
static unsigned char frame[108];

/* Moves what waits in `from` (a write BIO) into `to` (the other side's read BIO). */
static void pump(BIO *from, BIO *to) {
    int n;
    while ((n = BIO_read(from, net, sizeof net)) > 0) {
        BIO_write(to, net, n);
    }
}

static SSL *side(SSL_CTX *ctx) {
    SSL *ssl = SSL_new(ctx);
    SSL_set_bio(ssl, BIO_new(BIO_s_mem()), BIO_new(BIO_s_mem()));
    return ssl;
}

/* Makes both sides and their TLS 1.3 handshake with `suite`; returns 0, or -1 if it did not finish. */
int tls_setup(const char *cert, const char *key, const char *ca, const char *suite) {
    SSL_CTX *s = SSL_CTX_new(TLS_server_method());
    if (SSL_CTX_use_certificate_chain_file(s, cert) != 1
            || SSL_CTX_use_PrivateKey_file(s, key, SSL_FILETYPE_PEM) != 1) {
        return -1;
    }
    SSL_CTX_set_min_proto_version(s, TLS1_3_VERSION);
    SSL_CTX_set_num_tickets(s, 0);
    SSL_CTX *c = SSL_CTX_new(TLS_client_method());
    SSL_CTX_load_verify_locations(c, ca, NULL);
    SSL_CTX_set_verify(c, SSL_VERIFY_PEER, NULL);
    SSL_CTX_set_min_proto_version(c, TLS1_3_VERSION);
    SSL_CTX_set_ciphersuites(c, suite);
    server = side(s);
    client = side(c);
    SSL_set_accept_state(server);
    SSL_set_connect_state(client);
    SSL_set_tlsext_host_name(client, "localhost");
    SSL_set1_host(client, "localhost");
    for (int i = 0; i < 100; i++) {
        int a = SSL_do_handshake(client);
        pump(SSL_get_wbio(client), SSL_get_rbio(server));
        int b = SSL_do_handshake(server);
        pump(SSL_get_wbio(server), SSL_get_rbio(client));
        if (a == 1 && b == 1) {
            return strcmp(SSL_CIPHER_get_name(SSL_get_current_cipher(server)), suite) == 0 ? 0 : -1;
        }
    }
    return -1;
}

/* `n` echoes of a 108-byte frame: four record operations each; returns the bytes the client read back. */
long tls_echo(long n) {
    long total = 0;
    for (long i = 0; i < n; i++) {
        SSL_write(client, frame, sizeof frame);
        int k = BIO_read(SSL_get_wbio(client), net, sizeof net);
        BIO_write(SSL_get_rbio(server), net, k);
        int m = SSL_read(server, plain, sizeof plain);
        SSL_write(server, plain, m);
        k = BIO_read(SSL_get_wbio(server), net, sizeof net);
        BIO_write(SSL_get_rbio(client), net, k);
        total += SSL_read(client, plain, sizeof plain);
    }
    return total;
}
